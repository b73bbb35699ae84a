package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatRequest;
import java.time.Duration;

/**
 * One chat attempt handed to an executor.
 *
 * @param request the canonical request; its {@code model} is the upstream model id (the
 *     {@code provider/} prefix already removed)
 * @param target the connection to call
 * @param requestId the gateway's request id (for logs; executors may forward it upstream)
 * @param timeout bound on connecting and receiving the response headers
 */
public record ChatCall(ChatRequest request, UpstreamTarget target, String requestId, Duration timeout) {

    /** Validates the fields. */
    public ChatCall {
        requireNonNull(request, "request is null");
        requireNonNull(target, "target is null");
        requireNonNull(requestId, "requestId is null");
        requireNonNull(timeout, "timeout is null");
    }
}
