package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.stream.Pump;
import dev.sluice.runtime.stream.SseEvent;
import dev.sluice.runtime.stream.StreamRules;
import java.util.List;

/**
 * What a connection served: a complete answer, a stream, an upstream answer passed through, or
 * embeddings. It is the successful attempt's result itself (issue 35 §4: no wrapper between the
 * attempt and the served outcome), so it keeps the upstream's response head.
 */
public sealed interface Reply extends Attempt {

    /**
     * The upstream's response head: its status and headers (rate-limit headers feed OF-4 and RQ-10).
     *
     * @return the head, or null when unknown
     */
    ResponseHead head();

    /**
     * Closes what a reply still holds open upstream (a stream's pump, an unread answer). Idempotent.
     *
     * @param reply the reply
     */
    static void closeUpstream(Reply reply) {
        switch (reply) {
            case Stream s -> s.rest().close();
            case RawStream s -> s.rest().close();
            case Raw r -> r.response().close();
            case Complete c -> { }
            case Embeddings e -> { }
        }
    }

    /**
     * A complete chat answer.
     *
     * @param response the answer
     * @param openAiBody the upstream's own bytes when they are an OpenAI chat completion, else null:
     *     what an OpenAI client is sent unchanged (issue 26)
     * @param head the upstream's response head, or null
     */
    record Complete(ChatResponse response, byte[] openAiBody, ResponseHead head) implements Reply {
        /** Validates. */
        public Complete {
            requireNonNull(response, "response is null");
        }

        /**
         * A translated answer.
         *
         * @param response the answer
         */
        public Complete(ChatResponse response) {
            this(response, null, null);
        }
    }

    /**
     * A chat stream past its readiness gate (SPEC ST-0): its first useful event was read before the
     * connection was chosen, so a stream that dies, ends or stays silent before it fails over like
     * any other failed attempt; nothing reached the client yet.
     *
     * @param prefix the chunks read ahead, in order (at least one; the last is useful)
     * @param rest the remaining chunks, read on a pump of their own; the renderer closes it
     * @param rules the stream watchdogs' settings for the rest of the stream
     * @param startedNanos when the attempt started ({@link System#nanoTime()}): the hard deadline counts from there
     * @param head the upstream's response head, or null
     */
    record Stream(List<StreamChunk> prefix, Pump<StreamChunk> rest, StreamRules rules, long startedNanos, ResponseHead head)
            implements Reply {
        /** Validates and copies. */
        public Stream {
            prefix = List.copyOf(prefix);
            requireNonNull(rest, "rest is null");
            requireNonNull(rules, "rules is null");
            if (prefix.isEmpty()) {
                throw new IllegalArgumentException("prefix is empty");
            }
        }
    }

    /**
     * An upstream answer in the client's own dialect, relayed byte for byte (passthrough).
     *
     * @param response the accepted upstream response; the renderer closes it
     * @param stream whether the client asked for a stream
     */
    record Raw(UpstreamResponse response, boolean stream) implements Reply {
        /** Validates. */
        public Raw {
            requireNonNull(response, "response is null");
        }

        /** @return the upstream response's head */
        @Override
        public ResponseHead head() {
            return response.head();
        }
    }

    /**
     * A stream in the client's own dialect passed through byte for byte, past its readiness gate
     * (SPEC ST-0) like a {@link Stream}.
     *
     * @param prefix the events read ahead, in order (at least one; the last is useful)
     * @param rest the remaining events, read on a pump of their own; the renderer closes it
     * @param rules the stream watchdogs' settings for the rest of the stream
     * @param startedNanos when the attempt started ({@link System#nanoTime()})
     * @param head the upstream's response head, or null
     */
    record RawStream(List<SseEvent> prefix, Pump<SseEvent> rest, StreamRules rules, long startedNanos, ResponseHead head)
            implements Reply {
        /** Validates and copies. */
        public RawStream {
            prefix = List.copyOf(prefix);
            requireNonNull(rest, "rest is null");
            requireNonNull(rules, "rules is null");
            if (prefix.isEmpty()) {
                throw new IllegalArgumentException("prefix is empty");
            }
        }
    }

    /**
     * An embeddings answer, relayed as the upstream wrote it.
     *
     * @param bodyJson the upstream's JSON
     * @param head the upstream's response head, or null
     */
    record Embeddings(String bodyJson, ResponseHead head) implements Reply {
        /** Validates. */
        public Embeddings {
            requireNonNull(bodyJson, "bodyJson is null");
        }
    }
}
