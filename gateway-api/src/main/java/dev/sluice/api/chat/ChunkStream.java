package dev.sluice.api.chat;

import java.io.IOException;

/**
 * A stream of chunks as the upstream sends them. Not thread-safe: one reader. The runtime always
 * closes it, also when the client went away.
 */
public interface ChunkStream extends AutoCloseable {

    /**
     * Blocks until the next chunk arrived.
     *
     * @return the next chunk, or null when the stream ended normally
     * @throws IOException when the upstream connection failed or sent something unreadable
     */
    StreamChunk next() throws IOException;

    /** Releases the upstream connection. Idempotent. */
    @Override
    void close();
}
