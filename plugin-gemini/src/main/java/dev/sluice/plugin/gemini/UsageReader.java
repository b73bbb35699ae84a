package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import dev.sluice.api.chat.Usage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Gemini {@code usageMetadata} → canonical usage. Thinking tokens are output tokens (Google bills
 * them as such), so they count in {@code completion_tokens} and are broken out as
 * {@code completion_tokens_details.reasoning_tokens}, as OpenAI reports its reasoning models;
 * tokens of tool-use prompts count as input; cached input tokens appear as
 * {@code prompt_tokens_details.cached_tokens}.
 */
final class UsageReader {

    private UsageReader() {
    }

    /**
     * Reads usage.
     *
     * @param metadata the {@code usageMetadata} object, or null
     * @return the usage, or null when there is none
     */
    static Usage read(Map<String, Object> metadata) {
        if (metadata == null) {
            return null;
        }
        long prompt = count(metadata, "promptTokenCount") + count(metadata, "toolUsePromptTokenCount");
        Long thoughts = Json.number(metadata, "thoughtsTokenCount");
        long completion = count(metadata, "candidatesTokenCount") + (thoughts == null ? 0 : Math.max(0, thoughts));
        Long total = Json.number(metadata, "totalTokenCount");
        Map<String, String> extra = new LinkedHashMap<>();
        if (thoughts != null) {
            extra.put("completion_tokens_details", Json.write(Map.of("reasoning_tokens", Math.max(0, thoughts))));
        }
        Long cached = Json.number(metadata, "cachedContentTokenCount");
        if (cached != null) {
            extra.put("prompt_tokens_details", Json.write(Map.of("cached_tokens", Math.max(0, cached))));
        }
        return new Usage(prompt, completion, total == null || total < 0 ? prompt + completion : total, extra);
    }

    private static long count(Map<String, Object> metadata, String name) {
        Long v = Json.number(metadata, name);
        return v == null || v < 0 ? 0 : v;
    }
}
