package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The JSON form of {@link ResilienceSettings} (SE-4): {@link #toJson} writes exactly the keys of
 * the schema, {@link #fromJson} checks a whole tree against the schema (type and bounds of every
 * leaf, no unknown key) and the cross-field rules, failing with a {@link SettingsException} that
 * names the dotted path.
 */
public final class ResilienceSettingsCodec {

    private static final CircuitBreakerSection CIRCUIT_BREAKER = new CircuitBreakerSection();
    private static final ProviderCooldownSection PROVIDER_COOLDOWN = new ProviderCooldownSection();
    private static final ConnectionCooldownSection CONNECTION_COOLDOWN = new ConnectionCooldownSection();
    private static final StreamStallCooldownSection STREAM_STALL_COOLDOWN = new StreamStallCooldownSection();
    private static final ComboCooldownWaitSection COMBO_COOLDOWN_WAIT = new ComboCooldownWaitSection();
    private static final ModelLockoutSection MODEL_LOCKOUT = new ModelLockoutSection();
    private static final RequestQueueSection REQUEST_QUEUE = new RequestQueueSection();
    private static final QuotaShareConcurrencyLimitSection QUOTA_SHARE = new QuotaShareConcurrencyLimitSection();
    private static final StreamRecoverySection STREAM_RECOVERY = new StreamRecoverySection();
    private static final ServiceUnavailableCooldownSection SERVICE_UNAVAILABLE_COOLDOWN = new ServiceUnavailableCooldownSection();

    /** The top-level keys, in display order. */
    static final List<Section<?>> SECTIONS = List.of(CIRCUIT_BREAKER, PROVIDER_COOLDOWN, CONNECTION_COOLDOWN, STREAM_STALL_COOLDOWN,
            SERVICE_UNAVAILABLE_COOLDOWN, MODEL_LOCKOUT, COMBO_COOLDOWN_WAIT, REQUEST_QUEUE, QUOTA_SHARE, STREAM_RECOVERY);

    /** The whole tree's schema. */
    static final Schema.Obj SCHEMA;

    static {
        Schema.Obj.Builder b = Schema.Obj.builder();
        SECTIONS.forEach(s -> b.field(s.name(), s.schema()));
        SCHEMA = b.build();
    }

    private ResilienceSettingsCodec() {
    }

    /**
     * The JSON tree of the settings.
     *
     * @param settings the settings
     * @return a new tree with every key of the schema
     */
    public static ObjectNode toJson(ResilienceSettings settings) {
        ObjectNode root = Schema.NODES.objectNode();
        SECTIONS.forEach(s -> root.set(s.name(), write(s, settings)));
        return root;
    }

    private static <T> ObjectNode write(Section<T> section, ResilienceSettings settings) {
        return section.write(section.of(settings));
    }

    /**
     * Reads a whole tree, strictly.
     *
     * @param tree every key of the schema
     * @return the settings
     * @throws SettingsException naming the path of the first unknown key, missing key, wrong type,
     *     out-of-bounds value or broken cross-field rule
     */
    public static ResilienceSettings fromJson(JsonNode tree) {
        return read(validate(tree));
    }

    /**
     * Checks a whole tree against the schema and the cross-field rules.
     *
     * @param tree the tree
     * @return the normalized tree (duplicates removed from lists, map keys sorted)
     * @throws SettingsException naming the offending path
     */
    static ObjectNode validate(JsonNode tree) {
        return validate(tree, null, m -> { });
    }

    /**
     * Checks a whole tree that a PATCH produced: every leaf strictly, and strictly the cross-field
     * rules that involve a field of the PATCH. A rule the PATCH does not touch can only be broken
     * by a lower layer that changed under an older patch (an environment variable changed since);
     * it is clamped with a warning, as at start-up, rather than refusing an unrelated change.
     *
     * @param tree the tree
     * @param patch the PATCH body, or null to check every rule strictly
     * @param warn receives the warnings of clamped rules
     * @return the normalized tree (duplicates removed from lists, map keys sorted)
     * @throws SettingsException naming the offending path
     */
    static ObjectNode validate(JsonNode tree, JsonNode patch, Consumer<String> warn) {
        if (tree == null || !tree.isObject()) {
            throw new SettingsException(null, "The resilience settings must be a JSON object.");
        }
        ObjectNode valid = validate(SCHEMA, tree, "");
        for (Section<?> s : SECTIONS) {
            ObjectNode section = (ObjectNode) valid.get(s.name());
            for (CrossRule r : s.rules()) {
                if (patch == null || r.touchedBy(patch.path(s.name()))) {
                    r.check(section, s.name());
                } else {
                    r.clamp(section, s.name(), warn);
                }
            }
        }
        return valid;
    }

    private static ObjectNode validate(Schema.Obj schema, JsonNode node, String path) {
        if (!node.isObject()) {
            throw new SettingsException(path, "'" + path + "' must be an object, got " + Schema.shown(node) + ".");
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            unknown(schema, path, e.getKey());
        }
        ObjectNode out = Schema.NODES.objectNode();
        for (Map.Entry<String, Schema> f : schema.fields().entrySet()) {
            String childPath = child(path, f.getKey());
            JsonNode value = node.get(f.getKey());
            if (value == null) {
                throw new SettingsException(childPath, "'" + childPath + "' is required.");
            }
            out.set(f.getKey(), switch (f.getValue()) {
                case Schema.Obj o -> validate(o, value, childPath);
                case Schema.Leaf l -> l.strict(value, childPath);
            });
        }
        return out;
    }

    /**
     * Reads a tree that {@link #validate} returned.
     *
     * @param valid the tree
     * @return the settings
     */
    static ResilienceSettings read(ObjectNode valid) {
        return new ResilienceSettings(
                CIRCUIT_BREAKER.read(section(valid, CIRCUIT_BREAKER)),
                PROVIDER_COOLDOWN.read(section(valid, PROVIDER_COOLDOWN)),
                CONNECTION_COOLDOWN.read(section(valid, CONNECTION_COOLDOWN)),
                STREAM_STALL_COOLDOWN.read(section(valid, STREAM_STALL_COOLDOWN)),
                MODEL_LOCKOUT.read(section(valid, MODEL_LOCKOUT)),
                COMBO_COOLDOWN_WAIT.read(section(valid, COMBO_COOLDOWN_WAIT)),
                REQUEST_QUEUE.read(section(valid, REQUEST_QUEUE)),
                QUOTA_SHARE.read(section(valid, QUOTA_SHARE)),
                STREAM_RECOVERY.read(section(valid, STREAM_RECOVERY)),
                SERVICE_UNAVAILABLE_COOLDOWN.read(section(valid, SERVICE_UNAVAILABLE_COOLDOWN)));
    }

    private static ObjectNode section(ObjectNode tree, Section<?> s) {
        return (ObjectNode) tree.get(s.name());
    }

    /**
     * Fails on the first key of a PATCH body that is not in the schema, including keys whose value
     * is {@code null} (which would otherwise be a silent no-op).
     *
     * @param patch the body
     * @throws SettingsException naming the unknown key's path
     */
    static void checkKeys(JsonNode patch) {
        checkKeys(SCHEMA, patch, "");
    }

    private static void checkKeys(Schema.Obj schema, JsonNode patch, String path) {
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            Schema child = unknown(schema, path, e.getKey());
            String childPath = child(path, e.getKey());
            if (e.getValue().isObject()) {
                if (child instanceof Schema.Obj o) {
                    checkKeys(o, e.getValue(), childPath);
                } else if (child instanceof Schema.IntMap m) {
                    e.getValue().properties().forEach(k -> m.checkKey(k.getKey(), child(childPath, k.getKey())));
                }
            }
        }
    }

    private static Schema unknown(Schema.Obj schema, String path, String key) {
        Schema child = schema.fields().get(key);
        if (child == null) {
            String childPath = child(path, key);
            throw new SettingsException(childPath, "'" + childPath + "' is not a resilience setting (known"
                    + (path.isEmpty() ? "" : " in '" + path + "'") + ": " + String.join(", ", schema.fields().keySet()) + ").");
        }
        return child;
    }

    /**
     * Merges a layer of the config file, the environment or a persisted document into a tree,
     * leniently: each leaf is parsed and clamped by its schema, and each unknown key, wrong type or
     * unusable value is dropped (keeping the value below it) with one warning.
     *
     * @param target the tree below, changed in place (may be incomplete)
     * @param layer the layer, an object
     * @param nameOf the setting as the operator wrote it, from its dotted path
     * @param warn receives the warnings
     */
    static void mergeLenient(ObjectNode target, JsonNode layer, UnaryOperator<String> nameOf, Consumer<String> warn) {
        if (!layer.isObject()) {
            warn.accept(nameOf.apply("") + " is not an object; ignored");
            return;
        }
        mergeLenient(SCHEMA, target, layer, "", nameOf, warn);
    }

    private static void mergeLenient(Schema.Obj schema, ObjectNode target, JsonNode layer, String path, UnaryOperator<String> nameOf,
            Consumer<String> warn) {
        for (Map.Entry<String, JsonNode> e : layer.properties()) {
            String key = e.getKey();
            String childPath = child(path, key);
            Schema child = schema.fields().get(key);
            if (child == null) {
                warn.accept(nameOf.apply(childPath) + " is not a resilience setting; ignored");
            } else if (child instanceof Schema.Obj o) {
                if (e.getValue().isObject()) {
                    JsonNode below = target.get(key);
                    ObjectNode into = below instanceof ObjectNode ob ? ob : target.putObject(key);
                    mergeLenient(o, into, e.getValue(), childPath, nameOf, warn);
                } else {
                    warn.accept(nameOf.apply(childPath) + " = " + Schema.shown(e.getValue()) + " is not an object; ignored");
                }
            } else {
                ((Schema.Leaf) child).lenient(e.getValue(), target.get(key), nameOf.apply(childPath), warn)
                        .ifPresent(v -> target.set(key, v));
            }
        }
    }

    /**
     * Clamps the fields of a complete, leniently merged tree that break a cross-field rule, with one
     * warning each.
     *
     * @param tree the tree, changed in place
     * @param warn receives the warnings
     */
    static void clampRules(ObjectNode tree, Consumer<String> warn) {
        for (Section<?> s : SECTIONS) {
            s.rules().forEach(r -> r.clamp((ObjectNode) tree.get(s.name()), s.name(), warn));
        }
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }
}
