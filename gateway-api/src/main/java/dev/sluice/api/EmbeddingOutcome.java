package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamFailure;

/** What one embeddings attempt produced. */
public sealed interface EmbeddingOutcome {

    /**
     * The upstream's answer, passed through (OpenAI embeddings shape).
     *
     * @param bodyJson the response body, a JSON object
     * @param head upstream status and headers
     */
    record Completed(String bodyJson, ResponseHead head) implements EmbeddingOutcome {
        /** Validates the fields. */
        public Completed {
            requireNonNull(bodyJson, "bodyJson is null");
            requireNonNull(head, "head is null");
        }
    }

    /**
     * The attempt failed.
     *
     * @param failure what went wrong
     */
    record Failed(UpstreamFailure failure) implements EmbeddingOutcome {
        /** Validates the fields. */
        public Failed {
            requireNonNull(failure, "failure is null");
        }
    }
}
