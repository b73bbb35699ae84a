package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

/**
 * A function call the assistant made.
 *
 * @param id call id, used by the tool message answering it
 * @param name function name
 * @param argumentsJson arguments as a JSON text (as the model produced it)
 */
public record ToolCall(String id, String name, String argumentsJson) {

    /** Validates the fields. */
    public ToolCall {
        requireNonNull(id, "id is null");
        requireNonNull(name, "name is null");
        argumentsJson = argumentsJson == null ? "" : argumentsJson;
    }
}
