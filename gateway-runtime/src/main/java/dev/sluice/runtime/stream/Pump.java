package dev.sluice.runtime.stream;

import dev.sluice.runtime.io.AnswerBuffers;
import dev.sluice.runtime.io.Deadlines;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToIntFunction;

/**
 * Reads an upstream stream (canonical chunks, or raw SSE events passed through) on a virtual
 * thread of its own, so that the request's thread can wait for the next item with a deadline
 * ({@link #poll}). The queue is small: a slow client holds the upstream back (backpressure) instead
 * of Sluice buffering the stream. Large frames ({@link AnswerBuffers#LARGE_FRAME_BYTES} and up, issue
 * 29) are held back harder: one at a time (the next is not queued before the consumer is done with
 * the last), each counted against the shared answer budget while in flight; past the budget the
 * stream fails as the upstream's protocol error. {@link #close()} closes the upstream stream, which ends a read
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
     * @param room what it holds of the shared answer budget (a large frame), else 0
     * @param <T> the frame type
     */
    public record Next<T>(T value, long room) implements Item<T> {
        /**
         * A frame that holds no room.
         *
         * @param value the frame
         */
        public Next(T value) {
            this(value, 0);
        }
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
    private final ToIntFunction<T> size;
    private final AnswerBuffers buffers;
    /** The one permit of a large frame in flight: the reader takes it, the consumer gives it back when done. */
    private final Semaphore large = new Semaphore(1);
    private final Thread reader;
    private volatile boolean finished;
    /** The consumer while it waits for an item (the reader unparks it), else null. */
    private volatile Thread consumer;
    /** When the consumer's wait ends ({@link System#nanoTime()} scale). */
    private volatile long waitDeadline;
    /** The consumer's wait as {@link Deadlines} sees it: past its deadline, the consumer is unparked. */
    private final Deadlines.Waiter waiter = new Deadlines.Waiter() {
        @Override
        public long deadline() {
            return waitDeadline;
        }

        @Override
        public void expire() {
            wakeConsumer();
        }
    };
    /** The consumer's: room of the frame it was last given (given back at its next poll), and of the frames it kept. */
    private long lastRoom;
    private long keptRoom;


    /**
     * Starts pumping; large frames are relayed one at a time and counted against the budget.
     *
     * @param upstream the upstream stream (the pump closes it)
     * @param name the reader thread's name
     * @param size a frame's size in bytes (a cheap measure: no copy)
     * @param buffers the shared answer budget
     */
    public Pump(Source<T> upstream, String name, ToIntFunction<T> size, AnswerBuffers buffers) {
        this.upstream = upstream;
        this.size = size;
        this.buffers = buffers;
        this.reader = Thread.ofVirtual().name(name).start(this::pump);
    }

    private void pump() {
        Item<T> last;
        try {
            T frame;
            while ((frame = upstream.next()) != null) {
                long room = 0;
                int bytes = size.applyAsInt(frame);
                if (bytes >= AnswerBuffers.LARGE_FRAME_BYTES) {
                    // back-pressure: not queued before the consumer is done with the last large frame
                    large.acquire();
                    try {
                        room = buffers.takeStreamed(bytes);
                    } catch (IOException e) {
                        large.release();
                        throw e;
                    }
                }
                Next<T> next = room == 0 ? new Next<>(frame) : new Next<>(frame, room);
                if (!offer(next)) {
                    give(next);
                    return;
                }
                wakeConsumer();
                if (closed.get()) {
                    drain();
                    return;
                }
            }
            last = new End<>();
        } catch (IOException | RuntimeException e) {
            last = new Failed<>(e);
        } catch (InterruptedException e) {
            // closed while waiting for the consumer
            return;
        }
        offer(last);
        wakeConsumer();
    }

    private void wakeConsumer() {
        Thread c = consumer;
        if (c != null) {
            LockSupport.unpark(c);
        }
    }

    /** Gives back what a frame holds. */
    private void give(Item<T> item) {
        if (item instanceof Next<T> n && n.room() > 0) {
            buffers.release(n.room());
            large.release();
        }
    }

    /** Empties the queue, giving back what its frames hold (both threads may drain: each item is taken once). */
    private void drain() {
        for (Item<T> item; (item = queue.poll()) != null; ) {
            give(item);
        }
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
     * The next item, waiting at most {@code timeoutNanos} (the
     * wait is an untimed park that the reader or {@link Deadlines} ends, so no timer is scheduled
     * per event).
     *
     * @param timeoutNanos how long to wait
     * @return the item, or null when none came in time
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Item<T> poll(long timeoutNanos) throws InterruptedException {
        if (lastRoom > 0) {
            // the consumer asks again: it is done with the large frame it was given
            buffers.release(lastRoom);
            lastRoom = 0;
            large.release();
        }
        if (finished) {
            return new End<>();
        }
        if (Thread.interrupted()) {
            // as the queue's interruptible poll did: an interrupted consumer (the client left) stops here
            throw new InterruptedException();
        }
        Item<T> item = queue.poll();
        if (item == null && timeoutNanos > 0) {
            item = await(System.nanoTime() + timeoutNanos);
        }
        if (item instanceof Next<T> n) {
            lastRoom = n.room();
        } else if (item instanceof End || item instanceof Failed) {
            finished = true;
        }
        return item;
    }

    /**
     * Parks until an item comes or the deadline passes. The reader unparks the consumer after each
     * offer: either it sees {@link #consumer} set, or the consumer's poll after setting it sees the
     * item (the queue's lock orders the two).
     */
    private Item<T> await(long deadline) throws InterruptedException {
        waitDeadline = deadline;
        consumer = Thread.currentThread();
        Deadlines.enter(waiter);
        try {
            for (;;) {
                Item<T> item = queue.poll();
                if (item != null || System.nanoTime() - deadline >= 0) {
                    return item;
                }
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            consumer = null;
            Deadlines.leave(waiter);
        }
    }

    /**
     * The consumer keeps the frame it was last given (the readiness gate's prefix): its room stays
     * taken until {@link #releaseKept()} or {@link #close()}, while the next frames may come.
     */
    public void keep() {
        if (lastRoom > 0) {
            keptRoom += lastRoom;
            lastRoom = 0;
            large.release();
        }
    }

    /** The kept frames were written: their room is given back. */
    public void releaseKept() {
        buffers.release(keptRoom);
        keptRoom = 0;
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
            drain();
            buffers.release(lastRoom + keptRoom);
            lastRoom = 0;
            keptRoom = 0;
        }
    }

    /** @return whether the pump was closed */
    public boolean isClosed() {
        return closed.get();
    }
}
