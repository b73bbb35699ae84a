package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;

/** A served chat request: a complete answer, or a stream whose first chunk already arrived. */
public sealed interface ChatReply {

    /**
     * A complete answer.
     *
     * @param response the answer
     */
    record Complete(ChatResponse response) implements ChatReply {
        /** Validates. */
        public Complete {
            requireNonNull(response, "response is null");
        }
    }

    /**
     * A stream. The first chunk was read before the connection was chosen, so a stream that dies
     * before its first chunk fails over like any other failed attempt; nothing reached the client
     * yet.
     *
     * @param first the first chunk
     * @param rest the remaining chunks; the caller closes it
     */
    record Stream(StreamChunk first, ChunkStream rest) implements ChatReply {
        /** Validates. */
        public Stream {
            requireNonNull(first, "first is null");
            requireNonNull(rest, "rest is null");
        }
    }
}
