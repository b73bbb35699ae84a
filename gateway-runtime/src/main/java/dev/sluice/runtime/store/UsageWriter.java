package dev.sluice.runtime.store;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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

    private static final System.Logger LOG = System.getLogger(UsageWriter.class.getName());
    private static final int BATCH = 512;
    private static final long PRUNE_EVERY_ROWS = 10_000;

    private final UsageStore store;
    private final InstantSource clock;
    private final BlockingQueue<UsageRow> queue;
    private final Thread worker;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong pending = new AtomicLong();
    private final Object flushMonitor = new Object();
    private volatile boolean closed;
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
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.worker = Thread.ofPlatform().daemon().name("sluice-usage-writer").start(this::run);
    }

    /**
     * Queues a row; never blocks.
     *
     * @param row the row
     */
    public void record(UsageRow row) {
        pending.incrementAndGet();
        if (closed || !queue.offer(row)) {
            pending.decrementAndGet();
            dropped.incrementAndGet();
        }
    }

    /** @return rows dropped because the queue was full or a write failed */
    public long dropped() {
        return dropped.get();
    }

    /**
     * Blocks until every row queued before the call is written (tests, shutdown).
     *
     * @param timeout the most to wait
     * @return true when drained in time
     */
    public boolean flush(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (flushMonitor) {
            while (pending.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    flushMonitor.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    private void run() {
        List<UsageRow> batch = new ArrayList<>(BATCH);
        while (!closed || !queue.isEmpty()) {
            try {
                UsageRow first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                write(batch);
            } catch (InterruptedException e) {
                if (!closed) {
                    Thread.currentThread().interrupt();
                    return;
                }
            } finally {
                pending.addAndGet(-batch.size());
                batch.clear();
                synchronized (flushMonitor) {
                    flushMonitor.notifyAll();
                }
            }
        }
    }

    private void write(List<UsageRow> batch) {
        try {
            store.append(batch);
            sinceLastPrune += batch.size();
            if (sinceLastPrune >= PRUNE_EVERY_ROWS) {
                sinceLastPrune = 0;
                store.prune(clock.millis() - RETENTION.toMillis(), MAX_ROWS);
            }
        } catch (RuntimeException e) {
            dropped.addAndGet(batch.size());
            LOG.log(System.Logger.Level.WARNING, "could not write " + batch.size() + " usage rows: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        flush(Duration.ofSeconds(5));
        closed = true;
        worker.interrupt();
        try {
            worker.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
