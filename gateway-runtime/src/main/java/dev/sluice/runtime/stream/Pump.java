package dev.sluice.runtime.stream;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads an upstream stream (canonical chunks, or raw SSE events passed through) on a virtual
 * thread of its own, so that the request's thread can wait for the next item with a deadline
 * ({@link #poll}). The queue is small: a slow client holds the upstream back (backpressure) instead
 * of Sluice buffering the stream. {@link #close()} closes the upstream stream, which ends a read
 * blocked in it, and is what ends the upstream request at once when a watchdog fires or the
 * client leaves.
 *
 * @param <T> the frame type
 */
public final class Pump<T> implements AutoCloseable {

    /**
     * What the pump reads from: an upstream stream of frames.
     *
     * @param <T> the frame type
     */
    public interface Source<T> {
        /**
         * The next frame, blocking.
         *
         * @return the frame, or null at the end
         * @throws IOException when reading fails
         */
        T next() throws IOException;

        /** Ends the stream; a read blocked in {@link #next()} ends. */
        void close();
    }

    /**
     * What the pump read: a frame, the end, or the failure that ended it.
     *
     * @param <T> the frame type
     */
    public sealed interface Item<T> {
    }

    /**
     * A frame.
     *
     * @param value the frame
     * @param <T> the frame type
     */
    public record Next<T>(T value) implements Item<T> {
    }

    /**
     * The upstream ended the stream.
     *
     * @param <T> the frame type
     */
    public record End<T>() implements Item<T> {
    }

    /**
     * Reading failed.
     *
     * @param failure the failure
     * @param <T> the frame type
     */
    public record Failed<T>(Exception failure) implements Item<T> {
    }
    /** Chunks read ahead of the consumer at most. */
    static final int CAPACITY = 16;

    private final Source<T> upstream;
    private final BlockingQueue<Item<T>> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread reader;
    private volatile boolean finished;

    /**
     * Starts pumping.
     *
     * @param upstream the upstream stream (the pump closes it)
     * @param name the reader thread's name
     */
    public Pump(Source<T> upstream, String name) {
        this.upstream = upstream;
        this.reader = Thread.ofVirtual().name(name).start(this::pump);
    }

    private void pump() {
        Item<T> last;
        try {
            T frame;
            while ((frame = upstream.next()) != null) {
                if (!offer(new Next<>(frame))) {
                    return;
                }
            }
            last = new End<>();
        } catch (IOException | RuntimeException e) {
            last = new Failed<>(e);
        }
        offer(last);
    }

    private boolean offer(Item<T> item) {
        try {
            while (!closed.get()) {
                if (queue.offer(item, 100, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * The next item, waiting at most {@code timeoutNanos}.
     *
     * @param timeoutNanos how long to wait
     * @return the item, or null when none came in time
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Item<T> poll(long timeoutNanos) throws InterruptedException {
        if (finished) {
            return new End<>();
        }
        Item<T> item = queue.poll(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        if (item instanceof End || item instanceof Failed) {
            finished = true;
        }
        return item;
    }

    /** Ends the upstream stream (a blocked read in it ends) and the reader thread. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            upstream.close();
        } finally {
            reader.interrupt();
            queue.clear();
        }
    }

    /** @return whether the pump was closed */
    public boolean isClosed() {
        return closed.get();
    }
}
