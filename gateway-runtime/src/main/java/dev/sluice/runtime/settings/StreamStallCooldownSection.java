package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.StreamStallCooldown;

/** {@code streamStallCooldown.enabled} (CC-5). */
final class StreamStallCooldownSection implements Section<StreamStallCooldown> {

    private static final Schema.Obj SCHEMA = Schema.Obj.builder().bool("enabled").build();

    @Override
    public String name() {
        return "streamStallCooldown";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public StreamStallCooldown of(ResilienceSettings settings) {
        return settings.streamStallCooldown();
    }

    @Override
    public StreamStallCooldown read(ObjectNode valid) {
        return new StreamStallCooldown(valid.get("enabled").booleanValue());
    }

    @Override
    public ObjectNode write(StreamStallCooldown value) {
        return Schema.NODES.objectNode().put("enabled", value.enabled());
    }
}
