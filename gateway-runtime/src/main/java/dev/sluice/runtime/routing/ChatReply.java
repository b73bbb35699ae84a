package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import java.util.List;

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
     * A stream. Its first real chunk was read before the connection was chosen, so a stream that
     * dies before it fails over like any other failed attempt; nothing reached the client yet.
     *
     * @param prefix the chunks read ahead, in order (at least one)
     * @param rest the remaining chunks; the caller closes it
     */
    record Stream(List<StreamChunk> prefix, ChunkStream rest) implements ChatReply {
        /** Validates and copies. */
        public Stream {
            prefix = List.copyOf(prefix);
            requireNonNull(rest, "rest is null");
            if (prefix.isEmpty()) {
                throw new IllegalArgumentException("prefix is empty");
            }
        }
    }
}
