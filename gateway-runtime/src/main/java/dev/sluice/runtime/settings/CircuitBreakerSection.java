package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.ResilienceSettings.CircuitBreakerSettings;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code circuitBreaker.{oauth,apikey,local}} (CB-2, CB-4). Bounds as OmniRoute's settings
 * normalization; {@code cooldownByKind} keys are {@link FailureReason} wire names.
 */
final class CircuitBreakerSection implements Section<CircuitBreakerSettings> {

    private static final List<String> CLASSES = List.of("oauth", "apikey", "local");

    private static final Schema.Obj PROFILE = Schema.Obj.builder()
            .integer("degradationThreshold", 1, 1000)
            .integer("failureThreshold", 1, 1000)
            .integer("resetTimeoutMs", 1000, 86_400_000)
            .integer("maxBackoffMultiplier", 1, 1024)
            .integer("backoffEscalationCount", 0, 32)
            .field("cooldownByKind", new Schema.IntMap(
                    Arrays.stream(FailureReason.values()).map(FailureReason::wireName).collect(Collectors.toSet()),
                    "failure kind", 1000, 86_400_000))
            .build();

    private static final Schema.Obj SCHEMA;

    static {
        Schema.Obj.Builder b = Schema.Obj.builder();
        CLASSES.forEach(c -> b.field(c, PROFILE));
        SCHEMA = b.build();
    }

    @Override
    public String name() {
        return "circuitBreaker";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public List<CrossRule> rules() {
        return CLASSES.stream().map(c -> CrossRule.below(c, "degradationThreshold", "failureThreshold")).toList();
    }

    @Override
    public CircuitBreakerSettings of(ResilienceSettings settings) {
        return settings.circuitBreaker();
    }

    @Override
    public CircuitBreakerSettings read(ObjectNode valid) {
        return new CircuitBreakerSettings(profile((ObjectNode) valid.get("oauth")), profile((ObjectNode) valid.get("apikey")),
                profile((ObjectNode) valid.get("local")));
    }

    private static BreakerProfile profile(ObjectNode o) {
        Map<String, Long> byKind = new LinkedHashMap<>();
        o.get("cooldownByKind").properties().forEach(e -> byKind.put(e.getKey(), e.getValue().longValue()));
        return new BreakerProfile(o.get("degradationThreshold").intValue(), o.get("failureThreshold").intValue(),
                o.get("resetTimeoutMs").longValue(), o.get("maxBackoffMultiplier").intValue(),
                o.get("backoffEscalationCount").intValue(), byKind);
    }

    @Override
    public ObjectNode write(CircuitBreakerSettings value) {
        ObjectNode o = Schema.NODES.objectNode();
        o.set("oauth", profile(value.oauth()));
        o.set("apikey", profile(value.apikey()));
        o.set("local", profile(value.local()));
        return o;
    }

    private static ObjectNode profile(BreakerProfile p) {
        ObjectNode o = Schema.NODES.objectNode();
        o.put("degradationThreshold", p.degradationThreshold());
        o.put("failureThreshold", p.failureThreshold());
        o.set("resetTimeoutMs", Schema.integer(p.resetTimeoutMs()));
        o.put("maxBackoffMultiplier", p.maxBackoffMultiplier());
        o.put("backoffEscalationCount", p.backoffEscalationCount());
        ObjectNode byKind = o.putObject("cooldownByKind");
        p.cooldownByKind().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> byKind.set(e.getKey(), Schema.integer(e.getValue())));
        return o;
    }
}
