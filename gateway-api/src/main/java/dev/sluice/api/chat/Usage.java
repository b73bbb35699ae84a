package dev.sluice.api.chat;

/**
 * Token usage of one answer.
 *
 * @param promptTokens input tokens
 * @param completionTokens output tokens
 * @param totalTokens input plus output
 */
public record Usage(long promptTokens, long completionTokens, long totalTokens) {

    /** Validates that counts are not negative. */
    public Usage {
        if (promptTokens < 0 || completionTokens < 0 || totalTokens < 0) {
            throw new IllegalArgumentException("token counts must not be negative");
        }
    }
}
