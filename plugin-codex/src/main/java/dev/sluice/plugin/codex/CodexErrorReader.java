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
            return new UpstreamError(head, body, null, null, null);
        }
        Map<String, Object> error = Json.object(json, "error");
        if (error != null) {
            return new UpstreamError(head, body, Json.string(error, "code"), Json.string(error, "type"), Json.string(error, "message"));
        }
        if (json.get("detail") instanceof String detail) {
            return new UpstreamError(head, body, null, null, detail);
        }
        Map<String, Object> detail = Json.object(json, "detail");
        if (detail != null) {
            return new UpstreamError(head, body, Json.string(detail, "code"), Json.string(detail, "type"), Json.string(detail, "message"));
        }
        return new UpstreamError(head, body, null, null, null);
    }
}
