package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * A function the model may call.
 *
 * @param name function name
 * @param description description, or null
 * @param parametersJson JSON Schema of the parameters as raw JSON, or null
 * @param extra other fields of the function (e.g. {@code strict}), as raw JSON, kept verbatim
 */
public record ToolDefinition(String name, String description, String parametersJson, Map<String, String> extra) {

    /** Validates the fields. */
    public ToolDefinition {
        requireNonNull(name, "name is null");
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * A function without extra fields.
     *
     * @param name function name
     * @param description description, or null
     * @param parametersJson JSON Schema as raw JSON, or null
     */
    public ToolDefinition(String name, String description, String parametersJson) {
        this(name, description, parametersJson, Map.of());
    }
}
