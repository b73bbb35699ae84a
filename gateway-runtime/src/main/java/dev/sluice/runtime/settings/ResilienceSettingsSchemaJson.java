package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code GET /api/resilience/schema} (issue 33): every leaf of the resilience settings tree with
 * its type, bounds, built-in default, description and what its section affects, read from the same {@link Schema} that
 * validates a PATCH, so a form built from it cannot drift from what the server accepts.
 */
public final class ResilienceSettingsSchemaJson {

    /** What each section governs: the dashboard shows it beside the section's fields. */
    private static final Map<String, String> AFFECTS = Map.of(
            "circuitBreaker", "Provider circuit breakers per auth class: how many failures degrade and open a provider's host, "
                    + "how long it stays open (resilience.md §2).",
            "providerCooldown", "The provider cooldown window gate: many failures of one provider in a window pause it (§5).",
            "connectionCooldown", "How long a failing connection cools, and how the cooldown grows with repeated failures (§3).",
            "streamStallCooldown", "Whether a content stall of a stream cools the connection (CC-5).",
            "serviceUnavailableCooldown", "Whether a 503 cools the connection like other failures.",
            "modelLockout", "Locking one model of a connection out after model-specific errors (§4).",
            "comboCooldownWait", "How long a combo may wait out short cooldowns of its targets (combos.md).",
            "requestQueue", "Queue waits and depth for connections with a concurrency cap (§7).",
            "quotaShareConcurrencyLimit", "Whether the quota-share strategy caps concurrency per account.",
            "streamRecovery", "Stream watchdog timers: readiness, idle, keep-alive, attempt deadline, early EOF retries.");

    private ResilienceSettingsSchemaJson() {
    }

    /**
     * The schema as JSON.
     *
     * @param defaults the built-in defaults ({@link ResilienceSettings#DEFAULTS})
     * @return {@code {"sections": [{"name", "affects", "fields": [{"path", "type", "min"?, "max"?,
     *     "keys"?, "default", "description"}]}]}}
     */
    public static ObjectNode render(ResilienceSettings defaults) {
        ObjectNode tree = ResilienceSettingsCodec.toJson(defaults);
        ObjectNode root = Schema.NODES.objectNode();
        ArrayNode sections = root.putArray("sections");
        for (Section<?> s : ResilienceSettingsCodec.SECTIONS) {
            ObjectNode o = sections.addObject();
            o.put("name", s.name());
            o.put("affects", AFFECTS.getOrDefault(s.name(), ""));
            leaves(s.schema(), tree.get(s.name()), s.name(), o.putArray("fields"));
        }
        return root;
    }

    private static void leaves(Schema.Obj schema, JsonNode defaults, String path, ArrayNode out) {
        schema.fields().forEach((name, child) -> {
            String childPath = path + "." + name;
            JsonNode value = defaults == null ? null : defaults.get(name);
            switch (child) {
                case Schema.Obj o -> leaves(o, value, childPath, out);
                case Schema.Leaf l -> leaf(l, value, childPath, out.addObject());
            }
        });
    }

    private static void leaf(Schema.Leaf leaf, JsonNode value, String path, ObjectNode o) {
        o.put("path", path);
        switch (leaf) {
            case Schema.Int i -> o.put("type", "integer").put("min", i.min()).put("max", i.max());
            case Schema.OffOrInt i -> o.put("type", "integerOrOff").put("min", i.min()).put("max", i.max());
            case Schema.Bool b -> o.put("type", "boolean");
            case Schema.IntList i -> o.put("type", "integerList").put("min", i.min()).put("max", i.max());
            case Schema.IntMap m -> {
                o.put("type", "integerMap").put("min", m.min()).put("max", m.max()).put("keysMeaning", m.keysMeaning());
                ArrayNode keys = o.putArray("keys");
                new TreeSet<>(m.keys()).forEach(keys::add);
            }
        }
        o.set("default", value == null ? Schema.NODES.nullNode() : value.deepCopy());
        String description = ResilienceFieldDescriptions.of(path);
        if (description == null) {
            // a new setting without a description is a build failure (ResilienceFieldDescriptionsTest), never a blank form field
            throw new IllegalStateException("no description for resilience setting " + path);
        }
        o.put("description", description);
    }
}
