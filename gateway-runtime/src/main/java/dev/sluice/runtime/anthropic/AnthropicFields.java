package dev.sluice.runtime.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.openai.InvalidRequestException;

/** Strict reads of Anthropic request fields, with errors that name the field's path. */
final class AnthropicFields {

    private AnthropicFields() {
    }

    /** The {@code type} of a content block, which must be an object with a non-empty string type. */
    static String blockType(JsonNode block, FieldPath path) {
        if (block == null || !block.isObject()) {
            throw new InvalidRequestException(path.toString(), "'" + path + "' must be a content block object with a 'type'.");
        }
        JsonNode type = block.get("type");
        if (type == null || !type.isTextual() || type.asText().isEmpty()) {
            throw new InvalidRequestException(path + ".type", "Missing required parameter: '" + path + ".type'.");
        }
        return type.asText();
    }

    /** A field that must be present and a string; the path is spelled out only for the error. */
    static String requiredText(JsonNode node, String field, FieldPath path) {
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) {
            String full = path + "." + field;
            throw new InvalidRequestException(full, "Missing required parameter: '" + full + "'.");
        }
        if (!n.isTextual()) {
            String full = path + "." + field;
            throw new InvalidRequestException(full, "'" + full + "' must be a string.");
        }
        return n.asText();
    }
}
