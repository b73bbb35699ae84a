package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.QuotaShareConcurrencyLimit;

/** {@code quotaShareConcurrencyLimit.enabled} (QC-3). */
final class QuotaShareConcurrencyLimitSection implements Section<QuotaShareConcurrencyLimit> {

    private static final Schema.Obj SCHEMA = Schema.Obj.builder().bool("enabled").build();

    @Override
    public String name() {
        return "quotaShareConcurrencyLimit";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public QuotaShareConcurrencyLimit of(ResilienceSettings settings) {
        return settings.quotaShareConcurrencyLimit();
    }

    @Override
    public QuotaShareConcurrencyLimit read(ObjectNode valid) {
        return new QuotaShareConcurrencyLimit(valid.get("enabled").booleanValue());
    }

    @Override
    public ObjectNode write(QuotaShareConcurrencyLimit value) {
        return Schema.NODES.objectNode().put("enabled", value.enabled());
    }
}
