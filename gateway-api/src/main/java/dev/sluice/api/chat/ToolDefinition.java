package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

/**
 * A function the model may call.
 *
 * @param name function name
 * @param description description, or null
 * @param parametersJson JSON Schema of the parameters as raw JSON, or null
 */
public record ToolDefinition(String name, String description, String parametersJson) {

    /** Validates the fields. */
    public ToolDefinition {
        requireNonNull(name, "name is null");
    }
}
