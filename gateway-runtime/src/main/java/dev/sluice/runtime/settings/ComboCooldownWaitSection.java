package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ComboCooldownWait;
import java.util.List;

/** {@code comboCooldownWait} (CO-3): bounds of SPEC §13; {@code budgetMs ≥ maxWaitMs}. */
final class ComboCooldownWaitSection implements Section<ComboCooldownWait> {

    private static final Schema.Obj SCHEMA = Schema.Obj.builder()
            .bool("enabled")
            .integer("maxWaitMs", 0, 300_000)
            .integer("maxAttempts", 0, 10)
            .integer("budgetMs", 0, 300_000)
            .build();

    @Override
    public String name() {
        return "comboCooldownWait";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public List<CrossRule> rules() {
        return List.of(CrossRule.atLeast("", "budgetMs", "maxWaitMs"));
    }

    @Override
    public ComboCooldownWait of(ResilienceSettings settings) {
        return settings.comboCooldownWait();
    }

    @Override
    public ComboCooldownWait read(ObjectNode valid) {
        return new ComboCooldownWait(valid.get("enabled").booleanValue(), valid.get("maxWaitMs").longValue(),
                valid.get("maxAttempts").intValue(), valid.get("budgetMs").longValue());
    }

    @Override
    public ObjectNode write(ComboCooldownWait value) {
        ObjectNode o = Schema.NODES.objectNode().put("enabled", value.enabled());
        o.set("maxWaitMs", Schema.integer(value.maxWaitMs()));
        o.put("maxAttempts", value.maxAttempts());
        o.set("budgetMs", Schema.integer(value.budgetMs()));
        return o;
    }
}
