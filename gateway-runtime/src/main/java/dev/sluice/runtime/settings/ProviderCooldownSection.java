package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ProviderCooldownSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.WindowProfile;
import java.util.List;

/**
 * {@code providerCooldown} (§7, PC-1..PC-3): the master switch, the connection-level retry range
 * and one window profile per class. Bounds as OmniRoute's provider cooldown tracker.
 */
final class ProviderCooldownSection implements Section<ProviderCooldownSettings> {

    private static final Schema.Obj WINDOW = Schema.Obj.builder()
            .integer("failureThreshold", 1, 10_000)
            .integer("failureWindowMs", 1000, 86_400_000)
            .integer("cooldownMs", 1000, 86_400_000)
            .build();

    private static final Schema.Obj SCHEMA = Schema.Obj.builder()
            .bool("enabled")
            .integer("minRetryCooldownMs", 0, 3_600_000)
            .integer("maxRetryCooldownMs", 0, 86_400_000)
            .field("oauth", WINDOW)
            .field("apikey", WINDOW)
            .field("local", WINDOW)
            .build();

    @Override
    public String name() {
        return "providerCooldown";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public List<CrossRule> rules() {
        return List.of(CrossRule.atLeast("", "maxRetryCooldownMs", "minRetryCooldownMs"));
    }

    @Override
    public ProviderCooldownSettings of(ResilienceSettings settings) {
        return settings.providerCooldown();
    }

    @Override
    public ProviderCooldownSettings read(ObjectNode valid) {
        return new ProviderCooldownSettings(valid.get("enabled").booleanValue(), valid.get("minRetryCooldownMs").longValue(),
                valid.get("maxRetryCooldownMs").longValue(), window((ObjectNode) valid.get("oauth")),
                window((ObjectNode) valid.get("apikey")), window((ObjectNode) valid.get("local")));
    }

    private static WindowProfile window(ObjectNode o) {
        return new WindowProfile(o.get("failureThreshold").intValue(), o.get("failureWindowMs").longValue(), o.get("cooldownMs").longValue());
    }

    @Override
    public ObjectNode write(ProviderCooldownSettings value) {
        ObjectNode o = Schema.NODES.objectNode();
        o.put("enabled", value.enabled());
        o.set("minRetryCooldownMs", Schema.integer(value.minRetryCooldownMs()));
        o.set("maxRetryCooldownMs", Schema.integer(value.maxRetryCooldownMs()));
        o.set("oauth", window(value.oauth()));
        o.set("apikey", window(value.apikey()));
        o.set("local", window(value.local()));
        return o;
    }

    private static ObjectNode window(WindowProfile w) {
        ObjectNode o = Schema.NODES.objectNode();
        o.put("failureThreshold", w.failureThreshold());
        o.set("failureWindowMs", Schema.integer(w.failureWindowMs()));
        o.set("cooldownMs", Schema.integer(w.cooldownMs()));
        return o;
    }
}
