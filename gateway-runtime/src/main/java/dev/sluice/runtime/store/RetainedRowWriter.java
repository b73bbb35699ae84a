package dev.sluice.runtime.store;

import dev.sluice.runtime.io.BackgroundBatches;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;

/**
 * Writes a table's rows off the request path ({@link BackgroundBatches}: a bounded queue that
 * never blocks a request, one thread writing batches) and keeps the table bounded by age and row
 * count, pruning every {@value #PRUNE_EVERY_ROWS} rows. OmniRoute's synchronous per-request writes
 * are what made it slow down as history grew.
 *
 * @param <T> the row type
 */
public class RetainedRowWriter<T> implements AutoCloseable {

    /** The table a writer appends to and prunes. */
    public interface Table<T> {
        /**
         * Appends rows in one transaction.
         *
         * @param rows the rows
         */
        void append(List<T> rows);

        /**
         * Deletes rows older than a time, and the oldest beyond a count.
         *
         * @param olderThan epoch ms
         * @param maxRows rows kept at most
         * @return rows deleted
         */
        int prune(long olderThan, int maxRows);
    }

    static final int BATCH = 512;
    static final long PRUNE_EVERY_ROWS = 10_000;

    private final Table<T> table;
    private final InstantSource clock;
    private final Duration retention;
    private final int maxRows;
    private final BackgroundBatches<T> batches;
    private long sinceLastPrune;

    /**
     * Starts the writer thread.
     *
     * @param threadName the writer thread's name
     * @param what what the rows are, for the log
     * @param table where rows go
     * @param clock the clock (for retention)
     * @param capacity queue capacity
     * @param retention rows older than this are pruned
     * @param maxRows rows kept at most
     */
    protected RetainedRowWriter(String threadName, String what, Table<T> table, InstantSource clock, int capacity, Duration retention,
            int maxRows) {
        this.table = table;
        this.clock = clock;
        this.retention = retention;
        this.maxRows = maxRows;
        this.batches = new BackgroundBatches<>(threadName, capacity, BATCH, what, BackgroundBatches.LINGER, this::write);
    }

    /**
     * Queues a row; never blocks.
     *
     * @param row the row
     */
    public void record(T row) {
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

    private void write(List<T> batch) {
        table.append(batch);
        sinceLastPrune += batch.size();
        if (sinceLastPrune >= PRUNE_EVERY_ROWS) {
            sinceLastPrune = 0;
            table.prune(clock.millis() - retention.toMillis(), maxRows);
        }
    }

    @Override
    public void close() {
        batches.close();
    }
}
