package dev.sluice.api;

import static java.util.Objects.requireNonNull;

/**
 * What a computed header or query parameter of an {@link ExecutorCustomizer} may depend on besides
 * the connection (issue 27): which kind of request goes upstream, for which model.
 *
 * @param operation {@link #CHAT}, {@link #EMBEDDINGS} or {@link #PASSTHROUGH}
 * @param model the upstream model id, or null when the request does not name one (a passthrough)
 * @param stream whether the answer is streamed
 * @param requestId the gateway's request id, for correlation headers
 */
public record UpstreamCallInfo(String operation, String model, boolean stream, String requestId) {

    /** A chat request ({@code POST /chat/completions}). */
    public static final String CHAT = "chat";
    /** An embeddings request ({@code POST /embeddings}). */
    public static final String EMBEDDINGS = "embeddings";
    /** A request passed through as the client wrote it (e.g. {@code POST /responses}). */
    public static final String PASSTHROUGH = "passthrough";

    /** Validates the fields. */
    public UpstreamCallInfo {
        requireNonNull(operation, "operation is null");
    }
}
