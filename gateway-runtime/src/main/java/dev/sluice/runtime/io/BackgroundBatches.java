package dev.sluice.runtime.io;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes items off the request path: callers {@link #offer} into a bounded queue (never blocking;
 * items are dropped and counted when the writer falls behind), one background thread hands them
 * to the sink in batches, a failed batch is dropped, counted and logged. Shared by the attempt log
 * and the access log — synchronous per-request writes are what made OmniRoute slow down as its
 * history grew.
 *
 * <p>The writer is not woken per item (issue 26): it drains the queue every {@link #LINGER} and
 * sleeps in between, so a request pays one queue insert and, under load, the sink sees large
 * batches instead of one wake-up, one context switch and one transaction per request. It is woken
 * early only when the queue fills to {@link #wakeAt} items, and by {@link #flush} and
 * {@link #close}.
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

    /** How long queued items wait at most before the writer takes them (unless the queue fills first). */
    public static final Duration LINGER = Duration.ofMillis(100);

    private static final System.Logger LOG = System.getLogger(BackgroundBatches.class.getName());

    private final BlockingQueue<T> queue;
    private final int batchSize;
    private final long wakeAt;
    private final long lingerNanos;
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
     * @param linger how long queued items wait at most before the writer takes them ({@link #LINGER} by default)
     * @param sink where batches go
     */
    public BackgroundBatches(String threadName, int capacity, int batchSize, String what, Duration linger, Sink<T> sink) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        // a quarter full: early enough that a burst never overflows while the writer sleeps
        this.wakeAt = Math.max(1, Math.min(batchSize, capacity / 4));
        this.lingerNanos = Math.max(1, linger.toNanos());
        this.sink = sink;
        this.what = what;
        this.worker = Thread.ofPlatform().daemon().name(threadName).start(this::run);
    }

    /**
     * Queues an item; never blocks, never wakes the writer unless the queue is filling up.
     *
     * @param item the item
     */
    public void offer(T item) {
        long now = pending.incrementAndGet();
        if (closed || !queue.offer(item)) {
            pending.decrementAndGet();
            dropped.incrementAndGet();
            return;
        }
        if (now == wakeAt) {
            LockSupport.unpark(worker);
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
                LockSupport.unpark(worker);
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    flushMonitor.wait(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(left))));
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
        while (true) {
            while (queue.drainTo(batch, batchSize) > 0) {
                try {
                    sink.write(batch);
                } catch (Exception e) {
                    dropped.addAndGet(batch.size());
                    LOG.log(System.Logger.Level.WARNING, "could not write " + batch.size() + " " + what + ": " + e.getMessage());
                } finally {
                    pending.addAndGet(-batch.size());
                    batch.clear();
                    synchronized (flushMonitor) {
                        flushMonitor.notifyAll();
                    }
                }
            }
            if (closed && queue.isEmpty()) {
                return;
            }
            // interrupts (close) and unparks (flush, a filling queue) end the sleep early
            LockSupport.parkNanos(this, lingerNanos);
            Thread.interrupted();
        }
    }

    /** Writes what is queued (at most 5 s), then stops the writer thread. Idempotent. */
    @Override
    public void close() {
        flush(Duration.ofSeconds(5));
        closed = true;
        LockSupport.unpark(worker);
        try {
            worker.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
