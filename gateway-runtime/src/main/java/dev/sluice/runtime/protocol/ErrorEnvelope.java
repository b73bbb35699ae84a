package dev.sluice.runtime.protocol;

/** The shape of a client protocol's error answers (SPEC API-6). */
public enum ErrorEnvelope {
    /** {@code {"error":{"message","type","code","param"}}}. */
    OPENAI,
    /** {@code {"type":"error","error":{"type","message"}}}. */
    ANTHROPIC
}
