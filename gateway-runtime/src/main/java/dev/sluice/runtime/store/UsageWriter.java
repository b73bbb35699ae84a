package dev.sluice.runtime.store;

import java.time.Duration;
import java.time.InstantSource;

/** Writes {@code usage} rows (one per client request) off the request path, 90 days at most. */
public final class UsageWriter extends RetainedRowWriter<UsageRow> {

    /** Rows kept at most (bounded retention). */
    public static final int MAX_ROWS = 1_000_000;
    /** Rows older than this are pruned. */
    public static final Duration RETENTION = Duration.ofDays(90);
    /** Rows queued at most before new ones are dropped. */
    public static final int QUEUE_CAPACITY = 65_536;

    /**
     * Starts the writer.
     *
     * @param store where rows go
     * @param clock the clock (for retention)
     * @param capacity queue capacity
     */
    public UsageWriter(UsageStore store, InstantSource clock, int capacity) {
        super("sluice-usage-writer", "usage rows", store, clock, capacity, RETENTION, MAX_ROWS);
    }
}
