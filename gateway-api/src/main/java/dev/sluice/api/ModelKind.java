package dev.sluice.api;

/** What an upstream model serves. */
public enum ModelKind {
    /** Chat completions. */
    CHAT,
    /** Embeddings. */
    EMBEDDING
}
