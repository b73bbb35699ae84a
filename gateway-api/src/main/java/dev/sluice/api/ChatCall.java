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

    /**
     * Client headers the runtime hands to executors (never credentials or session headers).
     *
     * @deprecated which client headers reach executors is the runtime's policy, not part of the
     *     SPI: read {@link #clientHeaders()}, which holds exactly the ones forwarded. Kept so that
     *     compiled plugins still link.
     */
    @Deprecated(since = "0.1")
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
     * @deprecated an executor that rebuilds a call with this constructor drops the client
     *     headers; use {@link #withRequest(ChatRequest)} to change the request and keep the rest,
     *     or {@link #builder(ChatRequest, UpstreamTarget)}
     */
    @Deprecated(since = "0.1")
    public ChatCall(ChatRequest request, UpstreamTarget target, String requestId, Duration timeout) {
        this(request, target, requestId, timeout, Map.of());
    }

    /**
     * The same call with another request, everything else (client headers included) kept: what a
     * wrapping executor needs to adjust the request and hand it on.
     *
     * @param changed the request to send instead
     * @return the copy
     */
    public ChatCall withRequest(ChatRequest changed) {
        return new ChatCall(changed, target, requestId, timeout, clientHeaders);
    }

    /**
     * The same call against another connection.
     *
     * @param changed the connection to call instead
     * @return the copy
     */
    public ChatCall withTarget(UpstreamTarget changed) {
        return new ChatCall(request, changed, requestId, timeout, clientHeaders);
    }

    /**
     * A builder, for tests and for executors that make calls of their own. Fields the SPI adds
     * later get defaults here, so code using the builder keeps compiling and linking.
     *
     * @param request the canonical request
     * @param target the connection to call
     * @return the builder (request id {@code "req_test"}, timeout 30 s, no client headers)
     */
    public static Builder builder(ChatRequest request, UpstreamTarget target) {
        return new Builder(request, target);
    }

    /**
     * A builder holding this call's values.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return new Builder(request, target).requestId(requestId).timeout(timeout).clientHeaders(clientHeaders);
    }

    /** Builds a {@link ChatCall}; not thread-safe. */
    public static final class Builder {
        private ChatRequest request;
        private UpstreamTarget target;
        private String requestId = "req_test";
        private Duration timeout = Duration.ofSeconds(30);
        private Map<String, String> clientHeaders = Map.of();

        private Builder(ChatRequest request, UpstreamTarget target) {
            this.request = request;
            this.target = target;
        }

        /**
         * @param value the canonical request
         * @return this builder
         */
        public Builder request(ChatRequest value) {
            request = value;
            return this;
        }

        /**
         * @param value the connection to call
         * @return this builder
         */
        public Builder target(UpstreamTarget value) {
            target = value;
            return this;
        }

        /**
         * @param value the gateway's request id
         * @return this builder
         */
        public Builder requestId(String value) {
            requestId = value;
            return this;
        }

        /**
         * @param value bound on connecting and receiving the response headers
         * @return this builder
         */
        public Builder timeout(Duration value) {
            timeout = value;
            return this;
        }

        /**
         * @param value forwarded client headers, names in lower case
         * @return this builder
         */
        public Builder clientHeaders(Map<String, String> value) {
            clientHeaders = value;
            return this;
        }

        /**
         * @return the call
         * @throws NullPointerException when request, target, request id or timeout is null
         */
        public ChatCall build() {
            return new ChatCall(request, target, requestId, timeout, clientHeaders);
        }
    }
}
