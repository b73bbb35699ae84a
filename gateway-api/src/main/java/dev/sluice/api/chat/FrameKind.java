package dev.sluice.api.chat;

/**
 * What a stream chunk carries, for the stream watchdogs (SPEC ST-1): only {@link #CONTENT} and
 * {@link #REASONING} are progress; metadata and heartbeats never restart a stall timer.
 */
public enum FrameKind {
    /** Model output: text or tool-call pieces. */
    CONTENT,
    /** Visible reasoning (e.g. Claude {@code thinking_delta}), progress but not output. */
    REASONING,
    /** Role-only, finish-only or usage-only frames, ids, signatures. */
    METADATA,
    /** Keep-alive frames (e.g. Anthropic {@code ping}); the runtime relays them as SSE comments. */
    HEARTBEAT;

    /**
     * The kind of a chunk from its contents: content or tool-call pieces are content, reasoning
     * pieces reasoning, anything else metadata.
     *
     * @param choices the chunk's increments
     * @return the kind
     */
    public static FrameKind of(java.util.List<ChunkChoice> choices) {
        boolean reasoning = false;
        for (ChunkChoice c : choices) {
            if ((c.contentDelta() != null && !c.contentDelta().isEmpty()) || !c.toolCalls().isEmpty()) {
                return CONTENT;
            }
            reasoning |= c.reasoningDelta() != null;
        }
        return reasoning ? REASONING : METADATA;
    }
}
