package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.EmbeddingRequest;
import java.time.Duration;

/**
 * One embeddings attempt handed to an executor.
 *
 * @param request the request; its {@code model} is the upstream model id
 * @param target the connection to call
 * @param requestId the gateway's request id
 * @param timeout bound on connecting and receiving the response
 */
public record EmbeddingCall(EmbeddingRequest request, UpstreamTarget target, String requestId, Duration timeout) {

    /** Validates the fields. */
    public EmbeddingCall {
        requireNonNull(request, "request is null");
        requireNonNull(target, "target is null");
        requireNonNull(requestId, "requestId is null");
        requireNonNull(timeout, "timeout is null");
    }
}
