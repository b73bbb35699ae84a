package dev.sluice.runtime.store;

import dev.sluice.runtime.io.BackgroundBatches;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;

/**
 * Writes {@code usage} rows off the request path, as {@link ProxyLogWriter} writes attempts: a
 * bounded queue that never blocks a request (rows are dropped and counted when the writer falls
 * behind), one background thread writing batches, retention bounded by age and row count.
 */
public final class UsageWriter implements AutoCloseable {

    /** Rows kept at most (bounded retention). */
    public static final int MAX_ROWS = 1_000_000;
    /** Rows older than this are pruned. */
    public static final Duration RETENTION = Duration.ofDays(90);
    /** Rows queued at most before new ones are dropped. */
    public static final int QUEUE_CAPACITY = 65_536;

    private static final int BATCH = 512;
    private static final long PRUNE_EVERY_ROWS = 10_000;

    private final UsageStore store;
    private final InstantSource clock;
    private final BackgroundBatches<UsageRow> batches;
    private long sinceLastPrune;

    /**
     * Starts the writer.
     *
     * @param store where rows go
     * @param clock the clock (for retention)
     * @param capacity queue capacity
     */
    public UsageWriter(UsageStore store, InstantSource clock, int capacity) {
        this.store = store;
        this.clock = clock;
        this.batches = new BackgroundBatches<>("sluice-usage-writer", capacity, BATCH, "usage rows", this::write);
    }

    /**
     * Queues a row; never blocks.
     *
     * @param row the row
     */
    public void record(UsageRow row) {
        batches.offer(row);
    }

    /** @return rows dropped because the queue was full or a write failed */
    public long dropped() {
        return batches.dropped();
    }

    /**
     * Blocks until every row queued before the call is written (tests, shutdown).
     *
     * @param timeout the most to wait
     * @return true when drained in time
     */
    public boolean flush(Duration timeout) {
        return batches.flush(timeout);
    }

    /** One batch, on the writer thread; prunes every {@value #PRUNE_EVERY_ROWS} rows. */
    private void write(List<UsageRow> batch) {
        store.append(batch);
        sinceLastPrune += batch.size();
        if (sinceLastPrune >= PRUNE_EVERY_ROWS) {
            sinceLastPrune = 0;
            store.prune(clock.millis() - RETENTION.toMillis(), MAX_ROWS);
        }
    }

    @Override
    public void close() {
        batches.close();
    }
}
