package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a JSON Schema (as OpenAI clients write tool parameters and {@code response_format}
 * schemas) into the OpenAPI-3.0 subset Gemini's {@code Schema} accepts. Gemini answers 400
 * ("Invalid JSON payload received. Unknown name ...") to any keyword it does not know, so this is
 * an allow-list, not a deny-list: a keyword passes only when Gemini is known to accept it.
 *
 * <p>Kept: {@code type}, {@code format} (only the formats Gemini accepts), {@code title},
 * {@code description}, {@code nullable}, {@code enum} (strings only), {@code properties},
 * {@code required}, {@code items}, {@code anyOf}, {@code minItems}, {@code maxItems},
 * {@code minLength}, {@code maxLength}, {@code minProperties}, {@code maxProperties},
 * {@code minimum}, {@code maximum}, {@code pattern}, {@code example}, {@code default},
 * {@code propertyOrdering}. Rewritten: a type list such as {@code ["string","null"]} becomes
 * {@code type} + {@code nullable} (several non-null types become {@code anyOf}); {@code const}
 * becomes a one-value {@code enum}; {@code oneOf} becomes {@code anyOf}; {@code allOf} is merged
 * into its parent; local {@code $ref}s ({@code #/$defs/...}, {@code #/definitions/...}) are
 * inlined (a recursive reference ends in a plain {@code {"type":"object"}}). Everything else is
 * dropped (e.g. {@code $schema}, {@code $id}, {@code $defs}, {@code additionalProperties},
 * {@code patternProperties}, {@code exclusiveMinimum}, {@code multipleOf}, {@code uniqueItems},
 * {@code not}, {@code if}/{@code then}/{@code else}, {@code examples}, {@code strict}).
 */
final class SchemaSanitizer {

    /** Keywords copied as they are (after a type check where it matters). */
    private static final Set<String> PLAIN = Set.of("title", "description", "pattern", "example", "default");
    private static final Set<String> COUNTS = Set.of("minItems", "maxItems", "minLength", "maxLength",
            "minProperties", "maxProperties");
    private static final Set<String> BOUNDS = Set.of("minimum", "maximum");
    private static final Set<String> STRING_FORMATS = Set.of("enum", "date-time");
    private static final Set<String> NUMBER_FORMATS = Set.of("float", "double");
    private static final Set<String> INTEGER_FORMATS = Set.of("int32", "int64");
    /** Bound on nested {@code $ref} inlining, against schemas that would expand without end. */
    private static final int MAX_REF_DEPTH = 16;

    private final Map<String, Object> root;
    private final Deque<String> refStack = new ArrayDeque<>();

    private SchemaSanitizer(Map<String, Object> root) {
        this.root = root;
    }

    /**
     * Sanitises a schema.
     *
     * @param schema the parsed JSON Schema (an object)
     * @return the Gemini schema; possibly empty
     */
    static Map<String, Object> sanitize(Map<String, Object> schema) {
        return new SchemaSanitizer(schema).convert(schema);
    }

    /**
     * Sanitises the parameters schema of a function declaration.
     *
     * @param schema the parsed parameters schema, or null
     * @return the Gemini schema, or null when the function takes no parameters (Gemini refuses an
     *     object schema with empty {@code properties})
     */
    static Map<String, Object> sanitizeParameters(Map<String, Object> schema) {
        if (schema == null) {
            return null;
        }
        Map<String, Object> out = sanitize(schema);
        if (out.isEmpty() || ("object".equals(out.get("type")) && !out.containsKey("properties")
                && !out.containsKey("anyOf"))) {
            return null;
        }
        return out;
    }

    private Map<String, Object> convert(Map<String, Object> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        Object ref = in.get("$ref");
        if (ref instanceof String r) {
            out.putAll(resolve(r));
        }
        List<Map<String, Object>> allOf = schemas(in.get("allOf"));
        for (Map<String, Object> part : allOf) {
            merge(out, convert(part));
        }
        convertType(in, out);
        for (Map.Entry<String, Object> e : in.entrySet()) {
            String key = e.getKey();
            Object v = e.getValue();
            if (PLAIN.contains(key) && v != null) {
                out.put(key, v);
            } else if (COUNTS.contains(key) && v instanceof Number) {
                out.put(key, v);
            } else if (BOUNDS.contains(key) && v instanceof Number) {
                out.put(key, v);
            } else if (key.equals("nullable") && v instanceof Boolean) {
                out.put(key, v);
            } else if (key.equals("propertyOrdering") && allStrings(v)) {
                out.put(key, v);
            }
        }
        Object enumValues = in.get("enum");
        if (allStrings(enumValues) && !((List<?>) enumValues).isEmpty()) {
            // Gemini's enum is string-only; other enums are dropped rather than refused upstream
            out.put("enum", List.copyOf((List<?>) enumValues));
        } else if (in.get("const") instanceof String c) {
            out.put("enum", List.of(c));
        }
        if (in.get("format") instanceof String f && formatAllowed(out.get("type"), f)) {
            out.put("format", f);
        }
        if (in.get("properties") instanceof Map<?, ?> props) {
            Map<String, Object> converted = new LinkedHashMap<>();
            props.forEach((name, schema) -> {
                if (schema instanceof Map<?, ?>) {
                    converted.put(String.valueOf(name), convert(asObject(schema)));
                }
            });
            mergeProperties(out, converted);
        }
        if (in.get("required") instanceof List<?> req) {
            Set<String> names = new LinkedHashSet<>();
            if (out.get("required") instanceof List<?> earlier) {
                earlier.forEach(n -> names.add(String.valueOf(n)));
            }
            for (Object n : req) {
                if (n instanceof String s) {
                    names.add(s);
                }
            }
            out.put("required", new ArrayList<>(names));
        }
        if (in.get("items") instanceof Map<?, ?> items) {
            out.put("items", convert(asObject(items)));
        }
        List<Map<String, Object>> alternatives = new ArrayList<>(schemas(in.get("anyOf")));
        alternatives.addAll(schemas(in.get("oneOf")));
        if (!alternatives.isEmpty()) {
            List<Object> converted = new ArrayList<>();
            boolean nullable = false;
            for (Map<String, Object> alt : alternatives) {
                if ("null".equals(alt.get("type"))) {
                    nullable = true; // {"anyOf":[X, {"type":"null"}]} is Optional[X]
                } else {
                    converted.add(convert(alt));
                }
            }
            if (nullable) {
                out.put("nullable", Boolean.TRUE);
            }
            if (converted.size() == 1 && !out.containsKey("type")) {
                merge(out, asObject(converted.get(0)));
            } else if (!converted.isEmpty()) {
                out.put("anyOf", converted);
            }
        }
        tidy(out);
        return out;
    }

    private static void convertType(Map<String, Object> in, Map<String, Object> out) {
        Object type = in.get("type");
        if (type instanceof String t) {
            if (t.equals("null")) {
                out.put("nullable", Boolean.TRUE);
            } else {
                out.put("type", t);
            }
        } else if (type instanceof List<?> types) {
            List<String> nonNull = new ArrayList<>();
            for (Object t : types) {
                if ("null".equals(t)) {
                    out.put("nullable", Boolean.TRUE);
                } else if (t instanceof String s) {
                    nonNull.add(s);
                }
            }
            if (nonNull.size() == 1) {
                out.put("type", nonNull.get(0));
            } else if (nonNull.size() > 1) {
                List<Object> alternatives = new ArrayList<>();
                for (String s : nonNull) {
                    alternatives.add(new LinkedHashMap<>(Map.of("type", s)));
                }
                out.put("anyOf", alternatives);
            }
        }
    }

    private Map<String, Object> resolve(String ref) {
        String prefix = ref.startsWith("#/$defs/") ? "$defs" : ref.startsWith("#/definitions/") ? "definitions" : null;
        if (prefix == null || refStack.contains(ref) || refStack.size() >= MAX_REF_DEPTH) {
            // remote or recursive reference: Gemini cannot express it; an open object keeps the call valid
            return new LinkedHashMap<>(Map.of("type", "object"));
        }
        String name = ref.substring(prefix.length() + 3).replace("~1", "/").replace("~0", "~");
        Object target = Json.get(root.get(prefix), name);
        if (!(target instanceof Map<?, ?>)) {
            return new LinkedHashMap<>(Map.of("type", "object"));
        }
        refStack.push(ref);
        try {
            return convert(asObject(target));
        } finally {
            refStack.pop();
        }
    }

    /** Merges another converted schema into {@code out}; keys already set win, except properties and required, which unite. */
    private static void merge(Map<String, Object> out, Map<String, Object> other) {
        for (Map.Entry<String, Object> e : other.entrySet()) {
            switch (e.getKey()) {
                case "properties" -> mergeProperties(out, asObject(e.getValue()));
                case "required" -> {
                    Set<String> names = new LinkedHashSet<>();
                    if (out.get("required") instanceof List<?> l) {
                        l.forEach(n -> names.add(String.valueOf(n)));
                    }
                    if (e.getValue() instanceof List<?> l) {
                        l.forEach(n -> names.add(String.valueOf(n)));
                    }
                    out.put("required", new ArrayList<>(names));
                }
                default -> out.putIfAbsent(e.getKey(), e.getValue());
            }
        }
    }

    private static void mergeProperties(Map<String, Object> out, Map<String, Object> props) {
        Map<String, Object> all = out.get("properties") instanceof Map<?, ?> m ? asObject(m) : new LinkedHashMap<>();
        all.putAll(props);
        out.put("properties", all);
    }

    /** Drops what Gemini refuses even though each keyword is allowed: empty properties, dangling required names. */
    private static void tidy(Map<String, Object> out) {
        Map<String, Object> props = out.get("properties") instanceof Map<?, ?> m ? asObject(m) : Map.of();
        if (props.isEmpty()) {
            out.remove("properties");
        }
        if (out.get("required") instanceof List<?> req) {
            List<Object> kept = new ArrayList<>();
            for (Object n : req) {
                if (props.containsKey(String.valueOf(n))) {
                    kept.add(n);
                }
            }
            if (kept.isEmpty()) {
                out.remove("required");
            } else {
                out.put("required", kept);
            }
        }
        if (out.containsKey("anyOf") && out.containsKey("type")) {
            // next to a type, alternatives are JSON-Schema constraint idioms (e.g. anyOf of required
            // lists) that lose their meaning here and would reach Gemini as empty schemas
            out.remove("anyOf");
        }
    }

    private static boolean formatAllowed(Object type, String format) {
        if ("string".equals(type)) {
            return STRING_FORMATS.contains(format);
        }
        if ("number".equals(type)) {
            return NUMBER_FORMATS.contains(format);
        }
        if ("integer".equals(type)) {
            return INTEGER_FORMATS.contains(format);
        }
        return false;
    }

    private static boolean allStrings(Object v) {
        if (!(v instanceof List<?> l)) {
            return false;
        }
        for (Object o : l) {
            if (!(o instanceof String)) {
                return false;
            }
        }
        return true;
    }

    private static List<Map<String, Object>> schemas(Object v) {
        if (!(v instanceof List<?> l)) {
            return List.of();
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : l) {
            if (o instanceof Map<?, ?>) {
                out.add(asObject(o));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object v) {
        return (Map<String, Object>) v;
    }
}
