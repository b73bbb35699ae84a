package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamFailure;

/** What one chat attempt produced. */
public sealed interface ChatOutcome {

    /**
     * A complete, non-streaming answer.
     *
     * @param response the translated answer
     * @param head upstream status and headers
     * @param openAiBody the answer exactly as the upstream sent it when that is an OpenAI chat
     *     completion (the JSON {@code response} was read from), else null: the host relays these
     *     bytes unchanged to an OpenAI client instead of writing {@code response} again. Not copied:
     *     neither side changes it after the outcome is made.
     */
    record Completed(ChatResponse response, ResponseHead head, byte[] openAiBody) implements ChatOutcome {
        /** Validates the fields. */
        public Completed {
            requireNonNull(response, "response is null");
            requireNonNull(head, "head is null");
        }

        /**
         * A translated answer, without the upstream's own bytes.
         *
         * @param response the translated answer
         * @param head upstream status and headers
         */
        public Completed(ChatResponse response, ResponseHead head) {
            this(response, head, null);
        }
    }

    /**
     * A stream the upstream accepted; chunks are read by the runtime as they arrive. The runtime
     * always closes the stream.
     *
     * @param chunks translated chunks
     * @param head upstream status and headers
     */
    record Streaming(ChunkStream chunks, ResponseHead head) implements ChatOutcome {
        /** Validates the fields. */
        public Streaming {
            requireNonNull(chunks, "chunks is null");
            requireNonNull(head, "head is null");
        }
    }

    /**
     * The attempt failed: an upstream error status or a transport failure.
     *
     * @param failure what went wrong
     */
    record Failed(UpstreamFailure failure) implements ChatOutcome {
        /** Validates the fields. */
        public Failed {
            requireNonNull(failure, "failure is null");
        }
    }
}
