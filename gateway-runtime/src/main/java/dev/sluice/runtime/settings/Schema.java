package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The shape of the settings tree: objects with a fixed set of named fields, and leaves with a type
 * and bounds. A leaf checks a value in two ways: {@linkplain Leaf#strict strictly} for the admin API
 * (a wrong type or an out-of-bounds value is a {@link SettingsException} naming the path) and
 * {@linkplain Leaf#lenient leniently} for the config file, the environment and persisted documents
 * (text is parsed, out-of-bounds values are clamped, unusable values are dropped; one warning each).
 */
sealed interface Schema permits Schema.Obj, Schema.Leaf {

    /** Node factory of every value the schema builds. */
    JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * An object with a fixed set of fields.
     *
     * @param fields the fields in display order
     */
    record Obj(Map<String, Schema> fields) implements Schema {
        /** Copies the fields, keeping their order. */
        public Obj {
            fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        }

        /**
         * A builder.
         *
         * @return a builder with no fields
         */
        static Builder builder() {
            return new Builder();
        }

        /** Builds an {@link Obj} field by field, in display order. */
        static final class Builder {
            private final Map<String, Schema> fields = new LinkedHashMap<>();

            Builder field(String name, Schema schema) {
                if (fields.putIfAbsent(name, schema) != null) {
                    throw new IllegalArgumentException("duplicate settings field " + name);
                }
                return this;
            }

            Builder integer(String name, long min, long max) {
                return field(name, new Int(min, max));
            }

            Builder integerOrOff(String name, long min, long max) {
                return field(name, new OffOrInt(min, max));
            }

            Builder bool(String name) {
                return field(name, new Bool());
            }

            Obj build() {
                return new Obj(fields);
            }
        }
    }

    /** A value with a type and bounds. */
    sealed interface Leaf extends Schema permits Int, OffOrInt, Bool, IntList, IntMap {

        /**
         * Checks a value sent to the admin API.
         *
         * @param value the value (never null; may be a JSON null)
         * @param path its dotted path, for the error
         * @return the normalized value
         * @throws SettingsException naming the path when the type or a bound is wrong
         */
        JsonNode strict(JsonNode value, String path);

        /**
         * Reads a value of the config file, the environment or a persisted document: text is
         * parsed, out-of-bounds values are clamped, and unusable values are dropped, each with one
         * warning naming the setting.
         *
         * @param value the value (never null; may be a JSON null)
         * @param lower the value of the layer below, or null
         * @param name the setting as the operator wrote it, for the warning
         * @param warn receives the warnings
         * @return the value to use, or empty to keep the layer below
         */
        Optional<JsonNode> lenient(JsonNode value, JsonNode lower, String name, Consumer<String> warn);
    }

    /**
     * An integer in {@code min..max} (both inclusive).
     *
     * @param min lower bound
     * @param max upper bound
     */
    record Int(long min, long max) implements Leaf {

        @Override
        public JsonNode strict(JsonNode value, String path) {
            if (!value.isIntegralNumber()) {
                throw new SettingsException(path, "'" + path + "' must be an integer between " + min + " and " + max
                        + ", got " + shown(value) + ".");
            }
            BigInteger v = value.bigIntegerValue();
            if (!inBounds(v)) {
                throw new SettingsException(path, "'" + path + "' must be between " + min + " and " + max + ", got " + v + ".");
            }
            return integer(v.longValueExact());
        }

        @Override
        public Optional<JsonNode> lenient(JsonNode value, JsonNode lower, String name, Consumer<String> warn) {
            Optional<BigInteger> parsed = parseInteger(value);
            if (parsed.isEmpty()) {
                warn.accept(name + " = " + shown(value) + " is not an integer; ignored" + keeping(lower));
                return Optional.empty();
            }
            BigInteger v = parsed.get();
            if (inBounds(v)) {
                return Optional.of(integer(v.longValueExact()));
            }
            long clamped = v.compareTo(BigInteger.valueOf(min)) < 0 ? min : max;
            warn.accept(name + " = " + v + " is outside " + min + ".." + max + "; clamped to " + clamped);
            return Optional.of(integer(clamped));
        }

        boolean inBounds(BigInteger v) {
            return v.compareTo(BigInteger.valueOf(min)) >= 0 && v.compareTo(BigInteger.valueOf(max)) <= 0;
        }
    }

    /**
     * {@code 0} (the mechanism is off) or an integer in {@code min..max} (both inclusive), e.g. a
     * timer whose useful values start at one second. Leniently, a value between 0 and
     * {@code min} is raised to {@code min} (the operator wanted the timer on) and a negative one
     * becomes 0: clamping {@code -1} up to {@code min} would turn "off" into the most aggressive
     * timer there is.
     *
     * @param min lower bound of the values that are not off (&gt; 0)
     * @param max upper bound
     */
    record OffOrInt(long min, long max) implements Leaf {

        @Override
        public JsonNode strict(JsonNode value, String path) {
            if (!value.isIntegralNumber()) {
                throw new SettingsException(path, "'" + path + "' must be 0 (off) or an integer between " + min + " and " + max
                        + ", got " + shown(value) + ".");
            }
            BigInteger v = value.bigIntegerValue();
            if (v.signum() != 0 && !new Int(min, max).inBounds(v)) {
                throw new SettingsException(path, "'" + path + "' must be 0 (off) or between " + min + " and " + max + ", got " + v
                        + ".");
            }
            return integer(v.longValueExact());
        }

        @Override
        public Optional<JsonNode> lenient(JsonNode value, JsonNode lower, String name, Consumer<String> warn) {
            Optional<BigInteger> parsed = parseInteger(value);
            if (parsed.isEmpty()) {
                warn.accept(name + " = " + shown(value) + " is not an integer; ignored" + keeping(lower));
                return Optional.empty();
            }
            BigInteger v = parsed.get();
            if (v.signum() == 0 || new Int(min, max).inBounds(v)) {
                return Optional.of(integer(v.longValueExact()));
            }
            long clamped = v.signum() < 0 ? 0 : v.compareTo(BigInteger.valueOf(min)) < 0 ? min : max;
            warn.accept(name + " = " + v + " is neither 0 (off) nor inside " + min + ".." + max + "; clamped to " + clamped
                    + (clamped == 0 ? " (off)" : ""));
            return Optional.of(integer(clamped));
        }
    }

    /** {@code true} or {@code false}; leniently also {@code 1/0, on/off, yes/no} as text. */
    record Bool() implements Leaf {

        @Override
        public JsonNode strict(JsonNode value, String path) {
            if (!value.isBoolean()) {
                throw new SettingsException(path, "'" + path + "' must be true or false, got " + shown(value) + ".");
            }
            return value;
        }

        @Override
        public Optional<JsonNode> lenient(JsonNode value, JsonNode lower, String name, Consumer<String> warn) {
            if (value.isBoolean()) {
                return Optional.of(value);
            }
            String text = value.isTextual() ? value.asText().strip().toLowerCase(Locale.ROOT) : "";
            switch (text) {
                case "true", "1", "on", "yes" -> {
                    return Optional.of(NODES.booleanNode(true));
                }
                case "false", "0", "off", "no" -> {
                    return Optional.of(NODES.booleanNode(false));
                }
                default -> warn.accept(name + " = " + shown(value) + " is not true or false; ignored" + keeping(lower));
            }
            return Optional.empty();
        }
    }

    /**
     * A list of integers in {@code min..max}; duplicates are removed, the first occurrence kept.
     *
     * @param min lower bound of every element
     * @param max upper bound of every element
     */
    record IntList(long min, long max) implements Leaf {

        @Override
        public JsonNode strict(JsonNode value, String path) {
            if (!value.isArray()) {
                throw new SettingsException(path, "'" + path + "' must be a list of integers between " + min + " and " + max
                        + ", got " + shown(value) + ".");
            }
            Set<Long> out = new LinkedHashSet<>();
            for (JsonNode e : value) {
                if (!e.isIntegralNumber() || !new Int(min, max).inBounds(e.bigIntegerValue())) {
                    throw new SettingsException(path, "'" + path + "' must be a list of integers between " + min + " and " + max
                            + ", but contains " + shown(e) + ".");
                }
                out.add(e.longValue());
            }
            return array(out);
        }

        /** A bad element drops the whole list (it is one setting); an out-of-bounds element is dropped alone. */
        @Override
        public Optional<JsonNode> lenient(JsonNode value, JsonNode lower, String name, Consumer<String> warn) {
            if (!value.isArray()) {
                warn.accept(name + " = " + shown(value) + " is not a list of integers; ignored" + keeping(lower));
                return Optional.empty();
            }
            Set<Long> out = new LinkedHashSet<>();
            for (JsonNode e : value) {
                Optional<BigInteger> parsed = parseInteger(e);
                if (parsed.isEmpty()) {
                    warn.accept(name + " contains " + shown(e) + ", which is not an integer; ignored" + keeping(lower));
                    return Optional.empty();
                }
                if (!new Int(min, max).inBounds(parsed.get())) {
                    // clamping a status code would name another status: the element is dropped instead
                    warn.accept(name + " contains " + parsed.get() + ", outside " + min + ".." + max + "; that element is dropped");
                    continue;
                }
                out.add(parsed.get().longValueExact());
            }
            return Optional.of(array(out));
        }

        private static ArrayNode array(Set<Long> values) {
            ArrayNode a = NODES.arrayNode();
            values.forEach(v -> a.add(integer(v)));
            return a;
        }
    }

    /**
     * An object whose keys come from a fixed set and whose values are integers in
     * {@code min..max} (e.g. {@code cooldownByKind}). As an object it is merged key by key.
     *
     * @param keys the allowed keys
     * @param keysMeaning what the keys are, for messages (e.g. "failure kind")
     * @param min lower bound of every value
     * @param max upper bound of every value
     */
    record IntMap(Set<String> keys, String keysMeaning, long min, long max) implements Leaf {
        /** Copies the keys, sorted for messages. */
        public IntMap {
            keys = Collections.unmodifiableSet(new TreeSet<>(keys));
        }

        @Override
        public JsonNode strict(JsonNode value, String path) {
            if (!value.isObject()) {
                throw new SettingsException(path, "'" + path + "' must be an object of " + keysMeaning + " to an integer between "
                        + min + " and " + max + ", got " + shown(value) + ".");
            }
            ObjectNode out = NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                String entryPath = path + "." + e.getKey();
                checkKey(e.getKey(), entryPath);
                out.set(e.getKey(), new Int(min, max).strict(e.getValue(), entryPath));
            }
            return sorted(out);
        }

        /**
         * Fails when a key is not one of {@link #keys()}.
         *
         * @param key the key
         * @param entryPath its dotted path
         */
        void checkKey(String key, String entryPath) {
            if (!keys.contains(key)) {
                throw new SettingsException(entryPath, "'" + entryPath + "': unknown " + keysMeaning + " '" + key + "' (known: "
                        + String.join(", ", keys) + ").");
            }
        }

        /** Merged into the layer below key by key, like any object; each bad entry is dropped alone. */
        @Override
        public Optional<JsonNode> lenient(JsonNode value, JsonNode lower, String name, Consumer<String> warn) {
            if (!value.isObject()) {
                warn.accept(name + " = " + shown(value) + " is not an object; ignored" + keeping(lower));
                return Optional.empty();
            }
            ObjectNode out = lower != null && lower.isObject() ? ((ObjectNode) lower).deepCopy() : NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                String entryName = name + "." + e.getKey();
                if (!keys.contains(e.getKey())) {
                    warn.accept(entryName + ": unknown " + keysMeaning + " '" + e.getKey() + "'; ignored");
                    continue;
                }
                new Int(min, max).lenient(e.getValue(), out.get(e.getKey()), entryName, warn)
                        .ifPresent(v -> out.set(e.getKey(), v));
            }
            return Optional.of(sorted(out));
        }

        private static ObjectNode sorted(ObjectNode o) {
            Map<String, JsonNode> byKey = new TreeMap<>();
            o.properties().forEach(e -> byKey.put(e.getKey(), e.getValue()));
            ObjectNode out = NODES.objectNode();
            byKey.forEach(out::set);
            return out;
        }
    }

    /**
     * An integer node of the smallest type, as a JSON parser would read it, so that trees built
     * here and trees parsed from text compare equal.
     *
     * @param v the value
     * @return an int node when it fits, else a long node
     */
    static JsonNode integer(long v) {
        return v == (int) v ? NODES.numberNode((int) v) : NODES.numberNode(v);
    }

    /** An integer from a JSON integer or a text holding one; empty for anything else. */
    private static Optional<BigInteger> parseInteger(JsonNode value) {
        if (value.isIntegralNumber()) {
            return Optional.of(value.bigIntegerValue());
        }
        if (value.isTextual()) {
            try {
                return Optional.of(new BigInteger(value.asText().strip()));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** A value as the operator would recognise it, shortened. */
    static String shown(JsonNode value) {
        String s = value.toString();
        return s.length() > 60 ? s.substring(0, 57) + "..." : s;
    }

    private static String keeping(JsonNode lower) {
        return lower == null ? "" : ", keeping " + shown(lower);
    }
}
