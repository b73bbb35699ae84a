package dev.sluice.runtime.io;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes items off the request path: callers {@link #offer} into a bounded queue (never blocking;
 * items are dropped and counted when the writer falls behind), one background thread hands them
 * to the sink in batches, a failed batch is dropped, counted and logged. Shared by the attempt log,
 * the usage rows and the access log — synchronous per-request writes are what made OmniRoute slow
 * down as its history grew.
 *
 * @param <T> the item type
 */
public final class BackgroundBatches<T> implements AutoCloseable {

    /** Where batches go; may throw, which drops the batch. */
    @FunctionalInterface
    public interface Sink<T> {
        /**
         * Writes one batch.
         *
         * @param batch the items, in order
         * @throws Exception when the batch could not be written
         */
        void write(List<T> batch) throws Exception;
    }

    private static final System.Logger LOG = System.getLogger(BackgroundBatches.class.getName());

    private final BlockingQueue<T> queue;
    private final int batchSize;
    private final Sink<T> sink;
    private final String what;
    private final Thread worker;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong pending = new AtomicLong();
    private final Object flushMonitor = new Object();
    private volatile boolean closed;

    /**
     * Starts the writer thread.
     *
     * @param threadName the writer thread's name
     * @param capacity queue capacity
     * @param batchSize most items per batch
     * @param what what the items are, for the log ({@code "usage rows"})
     * @param sink where batches go
     */
    public BackgroundBatches(String threadName, int capacity, int batchSize, String what, Sink<T> sink) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        this.sink = sink;
        this.what = what;
        this.worker = Thread.ofPlatform().daemon().name(threadName).start(this::run);
    }

    /**
     * Queues an item; never blocks.
     *
     * @param item the item
     */
    public void offer(T item) {
        pending.incrementAndGet();
        if (closed || !queue.offer(item)) {
            pending.decrementAndGet();
            dropped.incrementAndGet();
        }
    }

    /** @return items dropped because the queue was full or a write failed */
    public long dropped() {
        return dropped.get();
    }

    /**
     * Blocks until every item queued before the call is written (tests, shutdown).
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
        List<T> batch = new ArrayList<>(batchSize);
        while (!closed || !queue.isEmpty()) {
            try {
                T first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, batchSize - 1);
                try {
                    sink.write(batch);
                } catch (Exception e) {
                    dropped.addAndGet(batch.size());
                    LOG.log(System.Logger.Level.WARNING, "could not write " + batch.size() + " " + what + ": " + e.getMessage());
                }
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

    /** Writes what is queued (at most 5 s), then stops the writer thread. Idempotent. */
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
