package dev.sluice.runtime;

import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.store.JdbcUsageStore;
import dev.sluice.runtime.store.ProxyLogWriter;
import dev.sluice.runtime.telemetry.AccessLog;
import dev.sluice.runtime.telemetry.AttemptLog;
import dev.sluice.runtime.telemetry.RecentRequests;
import dev.sluice.runtime.telemetry.RequestHistory;
import dev.sluice.runtime.telemetry.SluiceMetrics;
import dev.sluice.runtime.telemetry.Telemetry;
import dev.sluice.runtime.telemetry.UsageMeter;
import java.io.PrintStream;
import java.time.InstantSource;

/**
 * The composition root's telemetry (issue 35): metrics, the access log, usage counted in memory,
 * the ring of recent requests and the proxy-log writer.
 *
 * @param telemetry metrics, access log and usage, fed once per request
 * @param usage usage per minute, flushed every interval and at shutdown (issue 26)
 * @param attempts every attempt in the ring; failures and a sample of successes in proxy_logs (issue 26)
 * @param history recent requests and persisted failed attempts ({@code GET /api/logs})
 * @param logWriter the proxy-log writer
 */
record TelemetryWiring(Telemetry telemetry, UsageMeter usage, AttemptLog attempts, RequestHistory history, ProxyLogWriter logWriter)
        implements AutoCloseable {

    static TelemetryWiring start(SluiceConfig config, InstantSource clock, PrintStream console, StorageWiring storage,
            ResilienceWiring resilience, SharedState shared) {
        // GET /metrics reads the resilience state at scrape time; the gates report queue waits as they happen
        SluiceMetrics metrics = new SluiceMetrics(storage.connections(), resilience.resilience().breakers(),
                resilience.resilience().lockouts(), resilience.gates(), clock);
        resilience.queueWaits().set(metrics::queueWait);
        if (shared.configured()) {
            metrics.bindRedis(shared::fallback, shared::switchesToLocal, shared::switchesToShared);
        }
        UsageMeter usage = UsageMeter.start(new JdbcUsageStore(storage.db()), clock, config.observability().usageFlushInterval());
        RecentRequests recent = new RecentRequests(RecentRequests.DEFAULT_CAPACITY);
        Telemetry telemetry = new Telemetry(metrics, AccessLog.open(config.observability().accessLog(), console), usage, clock,
                System::nanoTime, recent);
        ProxyLogWriter logWriter = new ProxyLogWriter(storage.proxyLogs(), clock, 65_536);
        AttemptLog attempts = new AttemptLog(recent, logWriter::record, config.observability().proxyLogSuccessSample(), AttemptLog.RANDOM);
        return new TelemetryWiring(telemetry, usage, attempts, new RequestHistory(recent, storage.proxyLogs()), logWriter);
    }

    @Override
    public void close() {
        logWriter.close();
        telemetry.close();
    }
}
