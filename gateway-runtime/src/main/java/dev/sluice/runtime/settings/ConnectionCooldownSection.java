package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ConnectionCooldownSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.CooldownProfile;
import java.util.List;

/**
 * {@code connectionCooldown.{oauth,apikey}} (CC-2, CC-8). The upper bound of {@code maxCooldownMs}
 * is 30 days, the longest announced quota reset CC-2 accepts.
 */
final class ConnectionCooldownSection implements Section<ConnectionCooldownSettings> {

    private static final Schema.Obj PROFILE = Schema.Obj.builder()
            .integer("baseCooldownMs", 0, 86_400_000)
            .integer("maxBackoffSteps", 0, 32)
            .integer("maxCooldownMs", 1000, 2_592_000_000L)
            .build();

    private static final Schema.Obj SCHEMA = Schema.Obj.builder().field("oauth", PROFILE).field("apikey", PROFILE).build();

    @Override
    public String name() {
        return "connectionCooldown";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public List<CrossRule> rules() {
        return List.of(CrossRule.atLeast("oauth", "maxCooldownMs", "baseCooldownMs"),
                CrossRule.atLeast("apikey", "maxCooldownMs", "baseCooldownMs"));
    }

    @Override
    public ConnectionCooldownSettings of(ResilienceSettings settings) {
        return settings.connectionCooldown();
    }

    @Override
    public ConnectionCooldownSettings read(ObjectNode valid) {
        return new ConnectionCooldownSettings(profile((ObjectNode) valid.get("oauth")), profile((ObjectNode) valid.get("apikey")));
    }

    private static CooldownProfile profile(ObjectNode o) {
        return new CooldownProfile(o.get("baseCooldownMs").longValue(), o.get("maxBackoffSteps").intValue(), o.get("maxCooldownMs").longValue());
    }

    @Override
    public ObjectNode write(ConnectionCooldownSettings value) {
        ObjectNode o = Schema.NODES.objectNode();
        o.set("oauth", profile(value.oauth()));
        o.set("apikey", profile(value.apikey()));
        return o;
    }

    private static ObjectNode profile(CooldownProfile p) {
        ObjectNode o = Schema.NODES.objectNode();
        o.set("baseCooldownMs", Schema.integer(p.baseCooldownMs()));
        o.put("maxBackoffSteps", p.maxBackoffSteps());
        o.set("maxCooldownMs", Schema.integer(p.maxCooldownMs()));
        return o;
    }
}
