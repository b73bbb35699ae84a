package dev.sluice.runtime.settings;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;

/** Test helpers for settings trees addressed by dotted paths. */
final class Trees {

    static final ObjectMapper JSON = new ObjectMapper();

    private Trees() {
    }

    /** The default tree. */
    static ObjectNode defaults() {
        return ResilienceSettingsCodec.toJson(ResilienceSettings.DEFAULTS);
    }

    /** Parses JSON text (single quotes allowed for readability). */
    static JsonNode json(String text) {
        try {
            return JSON.readTree(text.replace('\'', '"'));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** Sets the value at a dotted path, creating objects on the way. */
    static ObjectNode set(ObjectNode tree, String path, Object value) {
        String[] parts = path.split("\\.");
        ObjectNode at = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode next = at.get(parts[i]);
            at = next instanceof ObjectNode o ? o : at.putObject(parts[i]);
        }
        at.set(parts[parts.length - 1], JSON.valueToTree(value));
        return tree;
    }

    /** The value at a dotted path. */
    static JsonNode at(JsonNode tree, String path) {
        return tree.at("/" + path.replace('.', '/'));
    }

    /** A patch document that sets one path. */
    static ObjectNode patch(String path, Object value) {
        return set(JSON.createObjectNode(), path, value);
    }
}
