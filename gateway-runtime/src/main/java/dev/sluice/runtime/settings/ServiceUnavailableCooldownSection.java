package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ServiceUnavailableCooldown;

/** {@code serviceUnavailableCooldown.enabled}: whether an upstream 503 cools the connection (issue 32). */
final class ServiceUnavailableCooldownSection implements Section<ServiceUnavailableCooldown> {

    private static final Schema.Obj SCHEMA = Schema.Obj.builder().bool("enabled").build();

    @Override
    public String name() {
        return "serviceUnavailableCooldown";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public ServiceUnavailableCooldown of(ResilienceSettings settings) {
        return settings.serviceUnavailableCooldown();
    }

    @Override
    public ServiceUnavailableCooldown read(ObjectNode valid) {
        return new ServiceUnavailableCooldown(valid.get("enabled").booleanValue());
    }

    @Override
    public ObjectNode write(ServiceUnavailableCooldown value) {
        return Schema.NODES.objectNode().put("enabled", value.enabled());
    }
}
