package dev.sluice.api.chat;

import java.util.Map;

/**
 * Token usage of one answer.
 *
 * @param promptTokens input tokens
 * @param completionTokens output tokens
 * @param totalTokens input plus output
 * @param extra other usage fields (e.g. {@code prompt_tokens_details}), as raw JSON, kept verbatim
 */
public record Usage(long promptTokens, long completionTokens, long totalTokens, Map<String, String> extra) {

    /** Validates that counts are not negative and copies the map. */
    public Usage {
        if (promptTokens < 0 || completionTokens < 0 || totalTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * Usage without extra fields.
     *
     * @param promptTokens input tokens
     * @param completionTokens output tokens
     * @param totalTokens input plus output
     */
    public Usage(long promptTokens, long completionTokens, long totalTokens) {
        this(promptTokens, completionTokens, totalTokens, Map.of());
    }
}
