package dev.sluice.runtime.store;

import dev.sluice.runtime.io.BackgroundBatches;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;

/**
 * Writes {@code proxy_logs} rows off the request path: requests {@link #record} into a bounded
 * queue (never blocking; rows are dropped and counted when the writer falls behind), and one
 * background thread writes them in batches. OmniRoute's synchronous per-request writes are what
 * made it slow down as history grew.
 */
public final class ProxyLogWriter implements AutoCloseable {

    /** Rows kept at most (bounded retention). */
    public static final int MAX_ROWS = 200_000;
    /** Rows older than this are pruned. */
    public static final Duration RETENTION = Duration.ofDays(7);

    private static final int BATCH = 512;
    private static final long PRUNE_EVERY_ROWS = 10_000;

    private final ProxyLogStore store;
    private final InstantSource clock;
    private final BackgroundBatches<ProxyLogRow> batches;
    private long sinceLastPrune;

    /**
     * Starts the writer.
     *
     * @param store where rows go
     * @param clock the clock (for retention)
     * @param capacity queue capacity
     */
    public ProxyLogWriter(ProxyLogStore store, InstantSource clock, int capacity) {
        this.store = store;
        this.clock = clock;
        this.batches = new BackgroundBatches<>("sluice-proxy-log-writer", capacity, BATCH, "proxy log rows", this::write);
    }

    /**
     * Queues a row; never blocks.
     *
     * @param row the row
     */
    public void record(ProxyLogRow row) {
        batches.offer(row);
    }

    /**
     * Rows dropped because the queue was full or a write failed.
     *
     * @return the count
     */
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
    private void write(List<ProxyLogRow> batch) {
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
