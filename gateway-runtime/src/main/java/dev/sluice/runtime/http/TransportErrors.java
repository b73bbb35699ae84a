package dev.sluice.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.http.DirectHandlers;
import java.util.Map;

/**
 * Answers of the HTTP/1 transport — a request Helidon refuses before routing (a bare CR or LF in
 * a header, headers past the prologue or header limits, conflicting {@code Content-Length} and
 * {@code Transfer-Encoding}, a URI too long) — in the same error envelope as every other answer
 * (SPEC API-6), where Helidon's default is an empty body. The message is fixed per status and
 * never echoes the request: what Helidon says about it may quote header values.
 */
public final class TransportErrors implements DirectHandler {

    private final ErrorMapper mapper;
    private final ObjectMapper json;

    private TransportErrors(ObjectMapper json) {
        this.json = json;
        this.mapper = new ErrorMapper(new Json(json, 0));
    }

    /**
     * The direct handlers for the web server ({@code WebServer.builder().directHandlers(...)}).
     *
     * @param json the object mapper
     * @return the handlers, one for every event type
     */
    public static DirectHandlers create(ObjectMapper json) {
        TransportErrors handler = new TransportErrors(json);
        DirectHandlers.Builder b = DirectHandlers.builder();
        for (EventType t : EventType.values()) {
            b.addHandler(t, handler);
        }
        return b.build();
    }

    @Override
    public TransportResponse handle(TransportRequest request, EventType eventType, Status status, ServerResponseHeaders headers,
            String message) {
        int code = status.code();
        ApiException e = new ApiException(code, code >= 500 ? "server_error" : "invalid_request_error", codeFor(code),
                messageFor(code), null, Map.of());
        String path = request.path();
        boolean anthropic = path != null && (path.equals("/v1/messages") || path.startsWith("/v1/messages/")
                || path.startsWith("/v1/messages?"));
        byte[] body;
        try {
            body = json.writeValueAsBytes(anthropic ? mapper.anthropicEnvelope(e) : mapper.envelope(e));
        } catch (JsonProcessingException ex) {
            body = new byte[0];
        }
        return TransportResponse.builder()
                .status(status)
                .headers(headers)
                .header(HeaderNames.CONTENT_TYPE, "application/json")
                .keepAlive(eventType.keepAlive())
                .entity(body)
                .build();
    }

    private static String codeFor(int status) {
        return switch (status) {
            case 413 -> "request_too_large";
            case 414 -> "uri_too_long";
            case 431 -> "headers_too_large";
            case 505 -> "http_version_not_supported";
            default -> status >= 500 ? "internal_error" : "invalid_request";
        };
    }

    private static String messageFor(int status) {
        return switch (status) {
            case 400 -> "The request is not valid HTTP/1.1 (malformed request line or headers: a bare CR or LF, an invalid header,"
                    + " or conflicting Content-Length and Transfer-Encoding).";
            case 413 -> "The request is too large.";
            case 414 -> "The request URI is too long.";
            case 431 -> "The request headers are too large or too many.";
            case 505 -> "HTTP version not supported: Sluice speaks HTTP/1.1.";
            default -> status >= 500 ? "Internal error; the server log has the details." : "The request was refused by the HTTP layer.";
        };
    }
}
