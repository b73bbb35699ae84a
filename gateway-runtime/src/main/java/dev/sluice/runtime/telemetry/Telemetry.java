package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.routing.AttemptRecorder;
import dev.sluice.runtime.store.ProxyLogRow;
import java.time.InstantSource;
import java.util.function.LongSupplier;

/**
 * Where a request's facts go when it ends: metrics, one access-log line, its usage counted in
 * its minute's bucket (inference requests). {@link #begin} opens a {@link RequestRecord} when a request arrives, {@link #finish}
 * closes it once, whichever path answered (a handler, or the error mapper). A request's attempts
 * are counted on its record by the routing path, which is handed the record as its
 * {@link dev.sluice.runtime.routing.AttemptTally} (issue 35 §4: facts travel one way, no lookup by
 * request id); the attempt log is observed here only for the per-attempt metrics.
 */
public final class Telemetry implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Telemetry.class.getName());

    private final SluiceMetrics metrics;
    private final AccessLog accessLog;
    private final UsageMeter usage;
    private final InstantSource clock;
    private final LongSupplier nanos;
    private final RecentRequests recentRequests;

    /**
     * Creates the telemetry.
     *
     * @param metrics the metrics
     * @param accessLog the access log
     * @param usage the usage accounting
     * @param clock the clock (arrival times)
     * @param nanos the monotonic clock (latencies), {@code System::nanoTime}
     * @param recentRequests the ring of recent requests ({@code GET /api/logs})
     */
    public Telemetry(SluiceMetrics metrics, AccessLog accessLog, UsageMeter usage, InstantSource clock, LongSupplier nanos,
            RecentRequests recentRequests) {
        this.recentRequests = recentRequests;
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.usage = usage;
        this.clock = clock;
        this.nanos = nanos;
    }

    /**
     * A request arrived.
     *
     * @param requestId its id
     * @param method the HTTP method
     * @param path the path
     * @return its record
     */
    public RequestRecord begin(String requestId, String method, String path) {
        return new RequestRecord(requestId, method, path, clock.millis(), nanos.getAsLong());
    }

    /**
     * A request was answered: once per record, later calls are ignored.
     *
     * @param r the record
     * @param status the HTTP status answered
     */
    public void finish(RequestRecord r, int status) {
        if (r.finishOnce()) {
            try {
                long latencyMs = Math.max(0, (nanos.getAsLong() - r.startedNanos()) / 1_000_000);
                metrics.request(r, status);
                recentRequests.finished(r, status, latencyMs);
                if (Api.logged(r.api())) {
                    accessLog.log(r, status, latencyMs);
                }
                if (Api.metered(r.api())) {
                    usage.record(r, status, latencyMs);
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "request " + r.requestId() + ": telemetry failed: " + e);
            }
        }
    }

    /**
     * The attempt log, observed: each attempt counts for the metrics (its request counts it on its
     * record itself, through the routing path).
     *
     * @param delegate the attempt log
     * @return the observing recorder
     */
    public AttemptRecorder observing(AttemptRecorder delegate) {
        return row -> {
            attempt(row);
            delegate.record(row);
        };
    }

    private void attempt(ProxyLogRow row) {
        try {
            metrics.attempt(row);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "attempt telemetry failed: " + e);
        }
    }

    /** @return the metrics */
    public SluiceMetrics metrics() {
        return metrics;
    }

    /** @return the access log */
    public AccessLog accessLog() {
        return accessLog;
    }

    /** @return the usage accounting */
    public UsageMeter usage() {
        return usage;
    }

    /** Flushes and closes the access log, the usage accounting and the metrics. */
    @Override
    public void close() {
        accessLog.close();
        usage.close();
        metrics.close();
    }
}
