package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import dev.sluice.api.chat.Usage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Messages API field values in canonical terms: {@code stop_reason} → {@code finish_reason}, and
 * Anthropic usage → canonical usage. Shared by complete answers and streams so both agree.
 */
final class FieldMapping {

    private FieldMapping() {
    }

    /**
     * The canonical finish reason of an Anthropic {@code stop_reason}.
     *
     * @param stopReason the stop reason, or null
     * @return the finish reason, or null when the stop reason is null
     */
    static String finishReason(String stopReason) {
        if (stopReason == null) {
            return null;
        }
        return switch (stopReason) {
            case "end_turn", "stop_sequence", "pause_turn" -> "stop";
            case "max_tokens", "model_context_window_exceeded" -> "length";
            case "tool_use" -> "tool_calls";
            case "refusal" -> "content_filter";
            // a reason added after this plugin was written: the turn ended, say so in the only neutral term
            default -> "stop";
        };
    }

    /**
     * Canonical usage from Anthropic usage. Prompt tokens are all input tokens, cached or not
     * ({@code input_tokens + cache_creation_input_tokens + cache_read_input_tokens}), as OpenAI
     * counts them; the cache counts stay visible in {@code extra}: {@code prompt_tokens_details}
     * {@code {cached_tokens}} (OpenAI's name for cache reads) and the raw Anthropic fields.
     *
     * @param u the Anthropic usage object (fields may be missing)
     * @return the usage
     */
    static Usage usage(Map<String, Object> u) {
        long input = count(u, "input_tokens");
        long output = count(u, "output_tokens");
        Long creation = Json.number(u, "cache_creation_input_tokens");
        Long read = Json.number(u, "cache_read_input_tokens");
        long prompt = input + nonNegative(creation) + nonNegative(read);
        Map<String, String> extra = new LinkedHashMap<>();
        if (read != null) {
            extra.put("prompt_tokens_details", Json.write(Map.of("cached_tokens", nonNegative(read))));
            extra.put("cache_read_input_tokens", Long.toString(nonNegative(read)));
        }
        if (creation != null) {
            extra.put("cache_creation_input_tokens", Long.toString(nonNegative(creation)));
        }
        return new Usage(prompt, output, prompt + output, extra);
    }

    private static long count(Map<String, Object> u, String name) {
        return nonNegative(Json.number(u, name));
    }

    private static long nonNegative(Long n) {
        return n == null ? 0 : Math.max(0, n);
    }
}
