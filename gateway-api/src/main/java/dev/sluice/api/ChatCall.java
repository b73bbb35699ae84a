package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * One chat attempt handed to an executor.
 *
 * @param request the canonical request; its {@code model} is the upstream model id (the
 *     {@code provider/} prefix already removed)
 * @param target the connection to call
 * @param requestId the gateway's request id (for logs; executors may forward it upstream)
 * @param timeout bound on connecting and receiving the response headers
 * @param clientHeaders the few client request headers an executor may forward on purpose (SPEC
 *     SEC-5: e.g. {@code anthropic-beta}), names in lower case; empty when the client sent none.
 *     Executors still check values against their own allow-list.
 */
public record ChatCall(ChatRequest request, UpstreamTarget target, String requestId, Duration timeout,
        Map<String, String> clientHeaders) {

    /** Client headers the runtime hands to executors (never credentials or session headers). */
    public static final Set<String> FORWARDABLE_CLIENT_HEADERS = Set.of("anthropic-beta", "anthropic-version");

    /** Validates the fields and copies the map. */
    public ChatCall {
        requireNonNull(request, "request is null");
        requireNonNull(target, "target is null");
        requireNonNull(requestId, "requestId is null");
        requireNonNull(timeout, "timeout is null");
        clientHeaders = clientHeaders == null ? Map.of() : Map.copyOf(clientHeaders);
    }

    /**
     * A call without client headers.
     *
     * @param request the canonical request
     * @param target the connection to call
     * @param requestId the request id
     * @param timeout bound on connecting and receiving the response headers
     */
    public ChatCall(ChatRequest request, UpstreamTarget target, String requestId, Duration timeout) {
        this(request, target, requestId, timeout, Map.of());
    }
}
