package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.StreamRecovery;
import dev.sluice.runtime.resilience.ResilienceSettings.StreamRecovery.ThroughputWatchdog;

/**
 * {@code streamRecovery} (§15 ST-0..ST-3, SE-4): the stream watchdogs' timers and the optional
 * throughput watchdog. The idle timeout and the keep-alive interval may be 0 (off); below one
 * second a timer would fire between two ordinary chunks. No cross-field rule: a readiness timeout
 * or an idle timeout longer than the attempt deadline is harmless (the deadline fires first), and
 * a rule {@code attemptDeadlineMs ≥ readinessTimeoutMs} would refuse the documented minimum
 * deadline of 60 s against the default readiness of 80 s.
 */
final class StreamRecoverySection implements Section<StreamRecovery> {

    private static final Schema.Obj THROUGHPUT_WATCHDOG = Schema.Obj.builder()
            .bool("enabled")
            .integer("windowMs", 5_000, 600_000)
            .integer("warmupMs", 0, 600_000)
            .integer("minBytesPerSecond", 1, 100_000)
            .integer("minMeasurableBytes", 0, 1_048_576)
            .build();

    private static final Schema.Obj SCHEMA = Schema.Obj.builder()
            .integer("readinessTimeoutMs", 1_000, 1_800_000)
            .integerOrOff("idleTimeoutMs", 1_000, 3_600_000)
            .integerOrOff("keepAliveIntervalMs", 1_000, 300_000)
            .integer("attemptDeadlineMs", 60_000, 86_400_000)
            .integer("earlyEofRetries", 0, 3)
            .field("throughputWatchdog", THROUGHPUT_WATCHDOG)
            .build();

    @Override
    public String name() {
        return "streamRecovery";
    }

    @Override
    public Schema.Obj schema() {
        return SCHEMA;
    }

    @Override
    public StreamRecovery of(ResilienceSettings settings) {
        return settings.streamRecovery();
    }

    @Override
    public StreamRecovery read(ObjectNode valid) {
        ObjectNode w = (ObjectNode) valid.get("throughputWatchdog");
        return new StreamRecovery(valid.get("readinessTimeoutMs").longValue(), valid.get("idleTimeoutMs").longValue(),
                valid.get("keepAliveIntervalMs").longValue(), valid.get("attemptDeadlineMs").longValue(),
                valid.get("earlyEofRetries").intValue(),
                new ThroughputWatchdog(w.get("enabled").booleanValue(), w.get("windowMs").longValue(), w.get("warmupMs").longValue(),
                        w.get("minBytesPerSecond").longValue(), w.get("minMeasurableBytes").longValue()));
    }

    @Override
    public ObjectNode write(StreamRecovery value) {
        ObjectNode o = Schema.NODES.objectNode();
        o.set("readinessTimeoutMs", Schema.integer(value.readinessTimeoutMs()));
        o.set("idleTimeoutMs", Schema.integer(value.idleTimeoutMs()));
        o.set("keepAliveIntervalMs", Schema.integer(value.keepAliveIntervalMs()));
        o.set("attemptDeadlineMs", Schema.integer(value.attemptDeadlineMs()));
        o.put("earlyEofRetries", value.earlyEofRetries());
        ThroughputWatchdog t = value.throughputWatchdog();
        ObjectNode w = o.putObject("throughputWatchdog");
        w.put("enabled", t.enabled());
        w.set("windowMs", Schema.integer(t.windowMs()));
        w.set("warmupMs", Schema.integer(t.warmupMs()));
        w.set("minBytesPerSecond", Schema.integer(t.minBytesPerSecond()));
        w.set("minMeasurableBytes", Schema.integer(t.minMeasurableBytes()));
        return o;
    }
}
