package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import java.util.ArrayList;
import java.util.List;

/** {@code modelLockout} (ML-2). Bounds as OmniRoute's model lockout settings. */
final class ModelLockoutSection implements Section<ModelLockoutSettings> {

    private static final Schema.Obj SCHEMA = Schema.Obj.builder()
            .bool("enabled")
            .field("errorCodes", new Schema.IntList(400, 599))
            .integer("baseCooldownMs", 5000, 600_000)
            .integer("maxCooldownMs", 5000, 3_600_000)
            .integer("maxBackoffSteps", 0, 20)
            .bool("useExponentialBackoff")
            .build();

    @Override
    public String name() {
        return "modelLockout";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public List<CrossRule> rules() {
        return List.of(CrossRule.atLeast("", "maxCooldownMs", "baseCooldownMs"));
    }

    @Override
    public ModelLockoutSettings of(ResilienceSettings settings) {
        return settings.modelLockout();
    }

    @Override
    public ModelLockoutSettings read(ObjectNode valid) {
        List<Integer> codes = new ArrayList<>();
        for (JsonNode c : valid.get("errorCodes")) {
            codes.add(c.intValue());
        }
        return new ModelLockoutSettings(valid.get("enabled").booleanValue(), codes, valid.get("baseCooldownMs").longValue(),
                valid.get("maxCooldownMs").longValue(), valid.get("maxBackoffSteps").intValue(),
                valid.get("useExponentialBackoff").booleanValue());
    }

    @Override
    public ObjectNode write(ModelLockoutSettings value) {
        ObjectNode o = Schema.NODES.objectNode();
        o.put("enabled", value.enabled());
        ArrayNode codes = o.putArray("errorCodes");
        value.errorCodes().forEach(codes::add);
        o.set("baseCooldownMs", Schema.integer(value.baseCooldownMs()));
        o.set("maxCooldownMs", Schema.integer(value.maxCooldownMs()));
        o.put("maxBackoffSteps", value.maxBackoffSteps());
        o.put("useExponentialBackoff", value.useExponentialBackoff());
        return o;
    }
}
