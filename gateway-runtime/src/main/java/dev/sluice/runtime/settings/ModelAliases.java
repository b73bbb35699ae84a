package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.ProviderDescriptor;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The operators' model aliases (SPEC API-1): a model name a client sends → the model Sluice routes
 * instead ({@code provider/model}, a bare model or a combo's name). An alias is exact or a pattern
 * with {@code *} for any run of characters ({@code claude-*}); an exact alias wins over a pattern,
 * and among patterns the most specific (the most characters besides {@code *}) wins, then the
 * first listed. No chains: a target is routed as it is. Immutable.
 *
 * @param aliases alias → target, in the operator's order
 */
public record ModelAliases(Map<String, String> aliases) {

    /** No aliases. */
    public static final ModelAliases NONE = new ModelAliases(Map.of());
    /** The most aliases accepted. */
    static final int MAX_ALIASES = 500;
    /** The longest alias or target. */
    static final int MAX_LENGTH = 200;

    /** Copies, keeping the order. */
    public ModelAliases {
        aliases = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(aliases));
    }

    /**
     * What a client's model name routes to.
     *
     * @param model the client's model
     * @return the alias's target, or the model itself when no alias matches
     */
    public String resolve(String model) {
        if (aliases.isEmpty() || model == null) {
            return model;
        }
        String exact = aliases.get(model);
        if (exact != null) {
            return exact;
        }
        String best = null;
        int bestWeight = -1;
        for (Map.Entry<String, String> e : aliases.entrySet()) {
            String alias = e.getKey();
            if (alias.indexOf('*') >= 0 && ProviderDescriptor.globMatches(alias, model)) {
                int weight = alias.length() - (int) alias.chars().filter(c -> c == '*').count();
                if (weight > bestWeight) {
                    best = e.getValue();
                    bestWeight = weight;
                }
            }
        }
        return best != null ? best : model;
    }

    /**
     * The exact aliases (patterns name no model): {@code GET /v1/models} lists them.
     *
     * @return alias → target
     */
    public Map<String, String> exact() {
        Map<String, String> out = new LinkedHashMap<>();
        aliases.forEach((a, t) -> {
            if (a.indexOf('*') < 0) {
                out.put(a, t);
            }
        });
        return out;
    }

    /** @return the aliases as a JSON object */
    ObjectNode write() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        aliases.forEach(o::put);
        return o;
    }

    /**
     * Reads and validates {@code modelAliases}: an object of alias → target, both model names
     * without whitespace; {@code null} clears them.
     *
     * @param node the value
     * @param path the setting's path, for errors
     * @return the aliases
     * @throws SettingsException naming the bad entry
     */
    static ModelAliases read(JsonNode node, String path) {
        if (node == null || node.isNull()) {
            return NONE;
        }
        if (!node.isObject()) {
            throw new SettingsException(path, "'" + path + "' must be an object of alias → model (e.g. {\"claude-*\": \"glm/glm-4.6\"}).");
        }
        if (node.size() > MAX_ALIASES) {
            throw new SettingsException(path, "'" + path + "' holds at most " + MAX_ALIASES + " aliases.");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String alias = e.getKey();
            String at = path + "." + alias;
            if (!name(alias) || alias.chars().allMatch(c -> c == '*')) {
                throw new SettingsException(at, "'" + at + "': an alias is a model name of 1 to " + MAX_LENGTH
                        + " characters without whitespace, with '*' for any run of characters (not only '*').");
            }
            if (!e.getValue().isTextual() || !name(e.getValue().asText())) {
                throw new SettingsException(at, "'" + at + "' must be the model to route instead: provider/model, a model or a combo"
                        + " name (1 to " + MAX_LENGTH + " characters, no whitespace).");
            }
            out.put(alias, e.getValue().asText());
        }
        return new ModelAliases(out);
    }

    private static boolean name(String s) {
        return !s.isEmpty() && s.length() <= MAX_LENGTH && s.chars().noneMatch(Character::isWhitespace);
    }
}
