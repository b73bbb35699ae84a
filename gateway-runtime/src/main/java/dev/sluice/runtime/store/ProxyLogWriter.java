package dev.sluice.runtime.store;

import java.time.Duration;
import java.time.InstantSource;

/** Writes {@code proxy_logs} rows (one per upstream attempt) off the request path, a week at most. */
public final class ProxyLogWriter extends RetainedRowWriter<ProxyLogRow> {

    /** Rows kept at most (bounded retention). */
    public static final int MAX_ROWS = 200_000;
    /** Rows older than this are pruned. */
    public static final Duration RETENTION = Duration.ofDays(7);

    /**
     * Starts the writer.
     *
     * @param store where rows go
     * @param clock the clock (for retention)
     * @param capacity queue capacity
     */
    public ProxyLogWriter(ProxyLogStore store, InstantSource clock, int capacity) {
        super("sluice-proxy-log-writer", "proxy log rows", store, clock, capacity, RETENTION, MAX_ROWS);
    }
}
