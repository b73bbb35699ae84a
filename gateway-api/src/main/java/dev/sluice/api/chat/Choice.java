package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * One alternative of a complete answer.
 *
 * @param index position
 * @param message the assistant message
 * @param finishReason why generation stopped ({@code stop}, {@code length}, {@code tool_calls} ...), or null
 * @param extra other fields of the choice (e.g. {@code logprobs}), as raw JSON, kept verbatim
 */
public record Choice(int index, ChatMessage message, String finishReason, Map<String, String> extra) {

    /** Validates the fields. */
    public Choice {
        requireNonNull(message, "message is null");
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * A choice without extra fields.
     *
     * @param index position
     * @param message the assistant message
     * @param finishReason why generation stopped, or null
     */
    public Choice(int index, ChatMessage message, String finishReason) {
        this(index, message, finishReason, Map.of());
    }
}
