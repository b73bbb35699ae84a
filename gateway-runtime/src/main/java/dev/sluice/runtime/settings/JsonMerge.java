package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The deep merge of SE-4: objects are merged key by key, scalars and arrays are replaced. In a
 * PATCH a {@code null} removes the key from the accumulated patch document, so that setting
 * follows the lower layers again (as in RFC 7386).
 */
final class JsonMerge {

    private JsonMerge() {
    }

    /**
     * Merges a layer into a tree.
     *
     * @param target the tree, changed in place
     * @param layer an object without nulls
     */
    static void overlay(ObjectNode target, JsonNode layer) {
        for (Map.Entry<String, JsonNode> e : layer.properties()) {
            JsonNode below = target.get(e.getKey());
            if (e.getValue().isObject() && below instanceof ObjectNode o) {
                overlay(o, e.getValue());
            } else {
                target.set(e.getKey(), e.getValue().deepCopy());
            }
        }
    }

    /**
     * Merges a PATCH body into the accumulated patch document: {@code null} removes a key, and
     * objects left empty are dropped (an empty object changes nothing).
     *
     * @param accumulated the document, changed in place
     * @param patch the body
     */
    static void accumulate(ObjectNode accumulated, JsonNode patch) {
        for (Map.Entry<String, JsonNode> e : List.copyOf(patch.properties())) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            if (value.isNull()) {
                accumulated.remove(key);
            } else if (value.isObject()) {
                JsonNode below = accumulated.get(key);
                ObjectNode into = below instanceof ObjectNode o ? o : Schema.NODES.objectNode();
                accumulate(into, value);
                if (into.isEmpty()) {
                    accumulated.remove(key);
                } else {
                    accumulated.set(key, into);
                }
            } else {
                accumulated.set(key, value.deepCopy());
            }
        }
    }
}
