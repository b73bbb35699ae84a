package dev.sluice.plugin.codex;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import java.util.Map;

/**
 * Reads the backend's error answers: OpenAI's envelope {@code {"error":{"message","type","code"}}},
 * or the {@code {"detail": …}} the ChatGPT backend answers with (a string, or an object with a
 * {@code message} or {@code code}). The body stays whole for the error rules.
 */
final class CodexErrorReader {

    private CodexErrorReader() {
    }

    static UpstreamError read(ResponseHead head, String body) {
        Map<String, Object> json;
        try {
            json = Json.parseObject(body);
        } catch (JsonException e) {
            return UpstreamError.builder(head).body(body).build();
        }
        Map<String, Object> error = Json.object(json, "error");
        if (error != null) {
            return UpstreamError.builder(head)
                    .body(body)
                    .errorCode(Json.string(error, "code"))
                    .errorType(Json.string(error, "type"))
                    .message(Json.string(error, "message"))
                    .build();
        }
        if (json.get("detail") instanceof String detail) {
            return UpstreamError.builder(head).body(body).message(detail).build();
        }
        Map<String, Object> detail = Json.object(json, "detail");
        if (detail != null) {
            return UpstreamError.builder(head)
                    .body(body)
                    .errorCode(Json.string(detail, "code"))
                    .errorType(Json.string(detail, "type"))
                    .message(Json.string(detail, "message"))
                    .build();
        }
        return UpstreamError.builder(head).body(body).build();
    }
}
