package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The configured layers of SE-2 below the persisted one: built-in
 * {@link ResilienceSettings#DEFAULTS} &lt; the {@code resilience:} subtree of
 * {@code conf/sluice.yaml} (same key names as the API) &lt; the environment
 * ({@link ResilienceEnvironment#OVERRIDES}). Start-up never fails on a bad value here: text is
 * parsed, out-of-bounds values and broken cross-field rules are clamped, and wrong types or unknown
 * keys keep the layer below, each with one WARNING line naming the setting.
 */
public final class ResilienceSettingsLayers {

    private static final System.Logger LOG = System.getLogger(ResilienceSettingsLayers.class.getName());

    private ResilienceSettingsLayers() {
    }

    /**
     * The settings from the defaults, the config file and the environment.
     *
     * @param yaml the {@code resilience:} subtree of the config file: maps, lists and scalars
     *     (text, as Helidon Config reads YAML), empty when absent
     * @param env the environment (only the variables of {@link ResilienceEnvironment#OVERRIDES} are read)
     * @return the settings, within every bound
     */
    public static ResilienceSettings configured(Map<String, ?> yaml, Map<String, String> env) {
        return configured(yaml, env, ResilienceSettingsLayers::warn);
    }

    static ResilienceSettings configured(Map<String, ?> yaml, Map<String, String> env, Consumer<String> warn) {
        ObjectNode tree = ResilienceSettingsCodec.toJson(ResilienceSettings.DEFAULTS);
        ResilienceSettingsCodec.mergeLenient(tree, toJson(yaml), p -> "config file setting resilience." + p, warn);
        ResilienceSettingsCodec.mergeLenient(tree, ResilienceEnvironment.layer(env), ResilienceEnvironment::name, warn);
        ResilienceSettingsCodec.clampRules(tree, warn);
        return ResilienceSettingsCodec.fromJson(tree);
    }

    /** Logs one warning about a setting that was clamped or ignored. */
    static void warn(String message) {
        LOG.log(System.Logger.Level.WARNING, message);
    }

    /** Maps, lists and scalars as a JSON tree (scalars other than numbers and booleans become text). */
    static JsonNode toJson(Object value) {
        return switch (value) {
            case null -> Schema.NODES.nullNode();
            case Map<?, ?> m -> {
                ObjectNode o = Schema.NODES.objectNode();
                m.forEach((k, v) -> o.set(String.valueOf(k), toJson(v)));
                yield o;
            }
            case List<?> l -> {
                ArrayNode a = Schema.NODES.arrayNode();
                l.forEach(v -> a.add(toJson(v)));
                yield a;
            }
            case Boolean b -> Schema.NODES.booleanNode(b);
            case Integer i -> Schema.NODES.numberNode(i);
            case Long n -> Schema.NODES.numberNode(n);
            default -> Schema.NODES.textNode(value.toString());
        };
    }
}
