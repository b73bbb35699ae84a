package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.RequestQueue;

/** {@code requestQueue} (§14 RQ-1, RQ-2, RQ-3, RQ-5, RQ-7): bounds of the spec. */
final class RequestQueueSection implements Section<RequestQueue> {

    private static final Schema.Obj SCHEMA = Schema.Obj.builder()
            .integer("maxWaitMs", 1, RequestQueue.MAX_BOUND_MS)
            .integer("executionMaxWaitMs", 1, RequestQueue.MAX_BOUND_MS)
            .integer("maxQueueDepth", 0, RequestQueue.MAX_QUEUE_DEPTH)
            .bool("autoEnableApiKeyProviders")
            .build();

    @Override
    public String name() {
        return "requestQueue";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public RequestQueue of(ResilienceSettings settings) {
        return settings.requestQueue();
    }

    @Override
    public RequestQueue read(ObjectNode valid) {
        return new RequestQueue(valid.get("maxWaitMs").longValue(), valid.get("executionMaxWaitMs").longValue(),
                valid.get("maxQueueDepth").intValue(), valid.get("autoEnableApiKeyProviders").booleanValue());
    }

    @Override
    public ObjectNode write(RequestQueue value) {
        ObjectNode o = Schema.NODES.objectNode();
        o.set("maxWaitMs", Schema.integer(value.maxWaitMs()));
        o.set("executionMaxWaitMs", Schema.integer(value.executionMaxWaitMs()));
        o.put("maxQueueDepth", value.maxQueueDepth());
        o.put("autoEnableApiKeyProviders", value.autoEnableApiKeyProviders());
        return o;
    }
}
