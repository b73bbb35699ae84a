package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/** The {@code rateLimitOverrides} object of a provider connection (SPEC AD-1, RQ-3). */
final class RateLimitOverridesJson {

    private static final Set<String> OVERRIDE_KEYS = Set.of("maxConcurrent", "modelConcurrency", "maxWaitMs",
            "executionMaxWaitMs", "requestsPerMinute", "minTimeBetweenRequestsMs");

    /** Largest override value: 24 h in ms (RQ-3 clamps waits to 1 ms–24 h). */
    private static final long MAX_OVERRIDE = 86_400_000L;

    private RateLimitOverridesJson() {
    }

    /**
     * Validates {@code rateLimitOverrides}: known keys only, each a bounded integer (or, for
     * {@code modelConcurrency}, an object of model → positive integer).
     *
     * @return the object as stored (JSON text), or null when absent
     */
    static String parse(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("rateLimitOverrides", "'rateLimitOverrides' must be an object.");
        }
        Iterator<Map.Entry<String, JsonNode>> it = n.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = "rateLimitOverrides." + e.getKey();
            if (!OVERRIDE_KEYS.contains(e.getKey())) {
                throw ApiException.badRequest(path, "unknown setting '" + path + "' (known: " + String.join(", ", OVERRIDE_KEYS.stream().sorted().toList()) + ").");
            }
            JsonNode v = e.getValue();
            if (e.getKey().equals("modelConcurrency")) {
                if (!v.isObject()) {
                    throw ApiException.badRequest(path, "'" + path + "' must be an object of model → positive integer.");
                }
                v.properties().forEach(m -> {
                    if (!m.getValue().isIntegralNumber() || !m.getValue().canConvertToInt() || m.getValue().asInt() < 1
                            || m.getValue().asInt() > 100_000) {
                        throw ApiException.badRequest(path + "." + m.getKey(), "'" + path + "." + m.getKey() + "' must be a positive integer.");
                    }
                });
            } else if (!v.isNull() && (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0 || v.asLong() > MAX_OVERRIDE)) {
                throw ApiException.badRequest(path, "'" + path + "' must be an integer between 0 and " + MAX_OVERRIDE + ".");
            }
        }
        return n.toString();
    }
}
