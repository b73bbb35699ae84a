package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The JSON form of the operators' provider error rules ({@code settings.providerErrorRules},
 * SPEC ER-5): a list of {@code {id?, provider, status?, headers?, textMarkers?, reason?, scope,
 * baseCooldownMs?}}, at most {@link #MAX_RULES}. Strict: every problem is a
 * {@link SettingsException} naming the path, e.g. {@code providerErrorRules[2].reason}.
 */
public final class OperatorErrorRules {

    /** At most this many operator rules (OmniRoute's bound). */
    public static final int MAX_RULES = 50;
    /** A declared cooldown may not exceed 30 days. */
    public static final long MAX_COOLDOWN_MS = 2_592_000_000L;
    private static final Set<String> FIELDS = Set.of("id", "provider", "status", "headers", "textMarkers", "reason", "scope",
            "baseCooldownMs");

    private OperatorErrorRules() {
    }

    /**
     * Reads and validates the rules.
     *
     * @param node the {@code providerErrorRules} value
     * @param path its path, for messages
     * @return the rules
     */
    public static List<ErrorRule> read(JsonNode node, String path) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new SettingsException(path, "'" + path + "' must be an array of rules.");
        }
        if (node.size() > MAX_RULES) {
            throw new SettingsException(path, "'" + path + "' holds " + node.size() + " rules; at most " + MAX_RULES + " are allowed.");
        }
        List<ErrorRule> out = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String at = path + "[" + i + "]";
            ErrorRule r = rule(node.get(i), at, i);
            if (!ids.add(r.provider() + "/" + r.id())) {
                throw new SettingsException(at + ".id", "'" + at + ".id' repeats rule id '" + r.id() + "' of provider '" + r.provider() + "'.");
            }
            out.add(r);
        }
        return List.copyOf(out);
    }

    private static ErrorRule rule(JsonNode n, String at, int index) {
        if (!n.isObject()) {
            throw new SettingsException(at, "'" + at + "' must be an object.");
        }
        for (var it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new SettingsException(at + "." + f, "'" + at + "." + f + "' is not a rule field (known: " + String.join(", ", FIELDS.stream().sorted().toList()) + ").");
            }
        }
        String provider = text(n, at, "provider", true);
        if (!ProviderDescriptor.isValidId(provider)) {
            throw new SettingsException(at + ".provider", "'" + at + ".provider' is not a provider id.");
        }
        String id = text(n, at, "id", false);
        Integer status = null;
        JsonNode s = n.get("status");
        if (s != null && !s.isNull()) {
            if (!s.isInt() || s.asInt() < 100 || s.asInt() > 599) {
                throw new SettingsException(at + ".status", "'" + at + ".status' must be an HTTP status (100–599).");
            }
            status = s.asInt();
        }
        Map<String, String> headers = new LinkedHashMap<>();
        JsonNode h = n.get("headers");
        if (h != null && !h.isNull()) {
            if (!h.isObject()) {
                throw new SettingsException(at + ".headers", "'" + at + ".headers' must be an object of header name to value ('*' = any value,"
                        + " '~regex' = a regular expression found in the value).");
            }
            for (var e : h.properties()) {
                if (!e.getValue().isTextual() || e.getKey().isBlank()) {
                    throw new SettingsException(at + ".headers." + e.getKey(), "'" + at + ".headers." + e.getKey() + "' must be a string.");
                }
                String value = e.getValue().asText();
                if (value.startsWith("~")) {
                    try {
                        java.util.regex.Pattern.compile(value.substring(1));
                    } catch (java.util.regex.PatternSyntaxException bad) {
                        throw new SettingsException(at + ".headers." + e.getKey(), "'" + at + ".headers." + e.getKey()
                                + "' is not a valid regular expression after '~': " + bad.getDescription() + ".");
                    }
                }
                headers.put(e.getKey().toLowerCase(Locale.ROOT), value);
            }
        }
        List<String> markers = new ArrayList<>();
        JsonNode t = n.get("textMarkers");
        if (t != null && !t.isNull()) {
            if (!t.isArray()) {
                throw new SettingsException(at + ".textMarkers", "'" + at + ".textMarkers' must be an array of strings.");
            }
            for (JsonNode m : t) {
                if (!m.isTextual() || m.asText().isBlank()) {
                    throw new SettingsException(at + ".textMarkers", "'" + at + ".textMarkers' must hold non-empty strings (substrings, never regexes).");
                }
                markers.add(m.asText());
            }
        }
        if (status == null && headers.isEmpty() && markers.isEmpty()) {
            throw new SettingsException(at, "'" + at + "' needs a condition: status, headers or textMarkers.");
        }
        FailureReason reason = FailureReason.QUOTA_EXHAUSTED;
        String r = text(n, at, "reason", false);
        if (r != null) {
            reason = enumValue(FailureReason.class, r, at + ".reason");
        }
        LockScope scope = enumValue(LockScope.class, text(n, at, "scope", true), at + ".scope");
        if (scope == LockScope.EXACT) {
            throw new SettingsException(at + ".scope", "'" + at + ".scope' must be model, provider or connection.");
        }
        Long cooldown = null;
        JsonNode c = n.get("baseCooldownMs");
        if (c != null && !c.isNull()) {
            if (!c.canConvertToLong() || !c.isIntegralNumber() || c.asLong() < 0 || c.asLong() > MAX_COOLDOWN_MS) {
                throw new SettingsException(at + ".baseCooldownMs", "'" + at + ".baseCooldownMs' must be an integer from 0 to " + MAX_COOLDOWN_MS + ".");
            }
            cooldown = c.asLong();
        }
        return new ErrorRule(id != null ? id : "operator-" + (index + 1), provider, status, headers, markers, reason, scope, cooldown);
    }

    private static String text(JsonNode n, String at, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw new SettingsException(at + "." + field, "'" + at + "." + field + "' is required.");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isBlank()) {
            throw new SettingsException(at + "." + field, "'" + at + "." + field + "' must be a non-empty string.");
        }
        return v.asText().strip();
    }

    private static <E extends Enum<E>> E enumValue(Class<E> type, String wire, String path) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(wire)) {
                return e;
            }
        }
        List<String> known = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            known.add(e.name().toLowerCase(Locale.ROOT));
        }
        throw new SettingsException(path, "'" + path + "' is '" + wire + "'; expected one of " + String.join(", ", known) + ".");
    }

    /**
     * The JSON form of rules.
     *
     * @param rules the rules
     * @return an array
     */
    public static ArrayNode write(List<ErrorRule> rules) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        rules.forEach(r -> out.add(write(r)));
        return out;
    }

    /**
     * One rule as JSON, in the shape operators send (also how {@code GET /api/plugins} lists the
     * plugins' rules).
     *
     * @param r the rule
     * @return an object
     */
    public static ObjectNode write(ErrorRule r) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("id", r.id());
        o.put("provider", r.provider());
        if (r.status() == null) {
            o.putNull("status");
        } else {
            o.put("status", r.status());
        }
        ObjectNode h = o.putObject("headers");
        r.headers().forEach(h::put);
        ArrayNode m = o.putArray("textMarkers");
        r.textMarkers().forEach(m::add);
        o.put("reason", r.reason().wireName());
        o.put("scope", r.scope().wireName());
        if (r.baseCooldownMs() == null) {
            o.putNull("baseCooldownMs");
        } else {
            o.put("baseCooldownMs", r.baseCooldownMs());
        }
        return o;
    }
}
