package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

/**
 * One alternative of a complete answer.
 *
 * @param index position
 * @param message the assistant message
 * @param finishReason why generation stopped ({@code stop}, {@code length}, {@code tool_calls} ...), or null
 */
public record Choice(int index, ChatMessage message, String finishReason) {

    /** Validates the fields. */
    public Choice {
        requireNonNull(message, "message is null");
    }
}
