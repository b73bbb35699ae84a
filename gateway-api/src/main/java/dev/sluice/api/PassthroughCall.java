package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;

/**
 * A client request in the upstream's own dialect, handed to an executor unchanged but for the
 * model id: no translation through the canonical model, so nothing the canonical model cannot
 * carry (e.g. Anthropic thinking signatures, {@code cache_control}) is lost.
 *
 * @param dialect the request's dialect, e.g. {@link #ANTHROPIC_MESSAGES}
 * @param body the client's JSON body with {@code model} replaced by the upstream model id
 * @param stream whether the client asked for a stream
 * @param target the connection to call
 * @param requestId the gateway's request id
 * @param timeout bound on connecting and receiving the response headers
 * @param clientHeaders allow-listed client headers ({@link ChatCall#FORWARDABLE_CLIENT_HEADERS})
 */
public record PassthroughCall(String dialect, byte[] body, boolean stream, UpstreamTarget target, String requestId,
        Duration timeout, Map<String, String> clientHeaders) {

    /** The Anthropic Messages API ({@code POST /v1/messages}). */
    public static final String ANTHROPIC_MESSAGES = "anthropic-messages";

    /** The OpenAI Responses API ({@code POST /v1/responses}). */
    public static final String OPENAI_RESPONSES = "openai-responses";

    /** Validates the fields and copies the map (the body is not copied: do not modify it). */
    public PassthroughCall {
        requireNonNull(dialect, "dialect is null");
        requireNonNull(body, "body is null");
        requireNonNull(target, "target is null");
        requireNonNull(requestId, "requestId is null");
        requireNonNull(timeout, "timeout is null");
        clientHeaders = clientHeaders == null ? Map.of() : Map.copyOf(clientHeaders);
    }
}
