package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import java.util.Map;

/**
 * Reads an Anthropic error answer ({@code {"type":"error","error":{"type","message"}}}) into the
 * canonical error. The head travels whole, so the runtime sees every {@code anthropic-ratelimit-*}
 * and {@code retry-after} header (FC-3) and the Claude lane (§9) can read the unified-limit
 * headers later. Anthropic errors have no separate code: the error type is both type and code
 * (e.g. {@code rate_limit_error}, {@code overloaded_error}).
 */
final class ErrorReader {

    private ErrorReader() {
    }

    /**
     * The canonical error of an error answer.
     *
     * @param head status and headers
     * @param body the body text (possibly truncated, possibly not JSON)
     * @return the error
     */
    static UpstreamError read(ResponseHead head, String body) {
        String type = null;
        String message = null;
        try {
            Map<String, Object> root = Json.parseObject(body);
            Map<String, Object> err = Json.object(root, "error");
            if (err != null) {
                type = Json.string(err, "type");
                message = Json.string(err, "message");
            } else if (Json.get(root, "error") instanceof String s) {
                message = s;
            } else {
                message = Json.string(root, "message");
            }
        } catch (JsonException ignored) {
            // not JSON (an HTML page from a proxy, a truncated body): the body is the message
        }
        return UpstreamError.builder(head).body(body).errorCode(type).errorType(type).message(message).build();
    }
}
