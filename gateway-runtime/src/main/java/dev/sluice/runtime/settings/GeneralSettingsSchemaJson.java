package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code GET /api/settings/schema} (issue 33): the general settings ({@code /api/settings}) with
 * their type, bounds, what {@code null} means (the value in force without an operator's setting)
 * and what a change affects — the same shape as {@code GET /api/resilience/schema}, so the console
 * builds both forms from the server instead of a list of its own.
 */
public final class GeneralSettingsSchemaJson {

    private GeneralSettingsSchemaJson() {
    }

    /**
     * The schema as JSON.
     *
     * @param settings the settings in force (for the configured session TTL and fallback the
     *     environment or config file set)
     * @return {@code {"sections": [{"name", "affects", "fields": [{"path", "type", "min"?, "max"?, "nullable"?, "default",
     *     "description", "current"}]}]}}
     */
    public static ObjectNode render(GeneralSettingsService settings) {
        ObjectNode root = Schema.NODES.objectNode();
        ArrayNode sections = root.putArray("sections");

        ObjectNode routing = section(sections, "routing", "How requests find their model and connection; applied to the next request.");
        ArrayNode fields = routing.putArray("fields");
        field(fields, GeneralSettingsService.SESSION_AFFINITY_TTL_MS, "integer",
                "How long a session stays pinned to the connection that served it after its last request, in ms; 0 turns "
                + "affinity off; null = the configured value (SLUICE_SESSION_AFFINITY_TTL_MS / routing.sessionAffinityTtlMs).")
                .put("min", 0).put("max", GeneralSettingsService.MAX_SESSION_AFFINITY_TTL_MS).put("nullable", true);
        field(fields, GeneralSettingsService.FEATURE_FLAGS + "." + GeneralSettingsService.EMERGENCY_FALLBACK, "model",
                "The provider/model tried when every target of a combo failed (OF-3); \"\" turns it off; null = "
                + "SLUICE_EMERGENCY_FALLBACK.").put("nullable", true);
        field(fields, GeneralSettingsService.MODEL_ALIASES, "json",
                "Names clients may use, {\"alias\": \"provider/model, a bare model or a combo\"}; an alias may hold * for any run "
                + "of characters. Replaces the whole map; at most 500; null = the config file's routing.modelAliases.")
                .put("nullable", true);

        ObjectNode usage = section(sections, "usage", "How usage is priced: GET /api/usage and the Usage page, from the next request on.");
        field(usage.putArray("fields"), GeneralSettingsService.MODEL_PRICES, "json",
                "USD per million tokens, {\"provider/model\": {\"input\": 3, \"output\": 15, \"cachedInput\"?: 0.3}}; replaces the "
                + "whole map; at most 10 000 models; null = none.").put("nullable", true);

        ObjectNode errors = section(sections, "errors", "How upstream errors are classified: cooldowns, lockouts and failover of the next failure.");
        field(errors.putArray("fields"), GeneralSettingsService.PROVIDER_ERROR_RULES, "json",
                "Operator rules that classify upstream errors (docs/resilience.md §6): [{id?, provider, status?, headers?, textMarkers?, "
                + "reason?, scope, baseCooldownMs?}], at most 50; replaces the list.");
        ObjectNode tree = settings.tree();
        sections.forEach(s -> s.get("fields").forEach(f -> {
            String path = f.get("path").asText();
            com.fasterxml.jackson.databind.JsonNode v = tree.at("/" + path.replace('.', '/'));
            ((ObjectNode) f).set("current", v.isMissingNode() ? Schema.NODES.nullNode() : v.deepCopy());
        }));
        return root;
    }

    private static ObjectNode section(ArrayNode sections, String name, String affects) {
        return sections.addObject().put("name", name).put("affects", affects);
    }

    private static ObjectNode field(ArrayNode fields, String path, String type, String description) {
        // every general setting falls back to the configuration (or nothing) when unset: its default is null
        ObjectNode f = fields.addObject().put("path", path).put("type", type).put("description", description);
        f.putNull("default");
        return f;
    }
}
