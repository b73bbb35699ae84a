package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.textOrNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;

/**
 * Reads an upstream's error body: {@code {"error":{"message","type","code"}}} and the common
 * variants ({@code {"error":"text"}}, top-level {@code message}/{@code code}/{@code type}), or
 * plain text as the message.
 */
final class ErrorReader {

    private final ObjectMapper mapper;

    ErrorReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    UpstreamError read(ResponseHead head, String body) {
        String message = null;
        String type = null;
        String code = null;
        try {
            JsonNode root = mapper.readTree(body);
            if (root != null && root.isObject()) {
                JsonNode err = root.get("error");
                if (err != null && err.isObject()) {
                    message = textOrNull(err.get("message"));
                    type = textOrNull(err.get("type"));
                    code = err.hasNonNull("code") ? err.get("code").asText() : null;
                } else if (err != null && err.isTextual()) {
                    message = err.asText();
                } else {
                    message = textOrNull(root.get("message"));
                    code = root.hasNonNull("code") ? root.get("code").asText() : null;
                    type = textOrNull(root.get("type"));
                }
            }
        } catch (JsonProcessingException | RuntimeException ignored) {
            // not JSON: the raw text is the message
        }
        return UpstreamError.builder(head).body(body).errorCode(code).errorType(type).message(message).build();
    }
}
