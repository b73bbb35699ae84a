package dev.sluice.runtime.stream;

import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads an upstream stream on a virtual thread of its own, so that the request's thread can wait
 * for the next item with a deadline ({@link #poll}). The queue is small: a slow client holds the
 * upstream back (backpressure) instead of Sluice buffering the stream. {@link #close()} closes the
 * upstream stream, which ends a read blocked in it, and is what ends the upstream request at once
 * when a watchdog fires or the client leaves.
 */
public final class ChunkPump implements ChunkStream {

    /** What the pump read: a chunk, the end, or the failure that ended it. */
    public sealed interface Item {
    }

    /**
     * A chunk.
     *
     * @param chunk the chunk
     */
    public record Chunk(StreamChunk chunk) implements Item {
    }

    /** The upstream ended the stream. */
    public record End() implements Item {
    }

    /**
     * Reading failed.
     *
     * @param failure the failure
     */
    public record Failed(Exception failure) implements Item {
    }

    private static final Item END = new End();
    /** Chunks read ahead of the consumer at most. */
    static final int CAPACITY = 16;

    private final ChunkStream upstream;
    private final BlockingQueue<Item> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread reader;
    private volatile boolean finished;

    /**
     * Starts pumping.
     *
     * @param upstream the upstream stream (the pump closes it)
     * @param name the reader thread's name
     */
    public ChunkPump(ChunkStream upstream, String name) {
        this.upstream = upstream;
        this.reader = Thread.ofVirtual().name(name).start(this::pump);
    }

    private void pump() {
        Item last;
        try {
            StreamChunk chunk;
            while ((chunk = upstream.next()) != null) {
                if (!offer(new Chunk(chunk))) {
                    return;
                }
            }
            last = END;
        } catch (IOException | RuntimeException e) {
            last = new Failed(e);
        }
        offer(last);
    }

    private boolean offer(Item item) {
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
    public Item poll(long timeoutNanos) throws InterruptedException {
        if (finished) {
            return END;
        }
        Item item = queue.poll(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        if (item instanceof End || item instanceof Failed) {
            finished = true;
        }
        return item;
    }

    /** The next chunk without a deadline (for readers that do not watch). */
    @Override
    public StreamChunk next() throws IOException {
        try {
            Item item = finished ? END : queue.take();
            return switch (item) {
                case Chunk c -> c.chunk();
                case End e -> {
                    finished = true;
                    yield null;
                }
                case Failed f -> {
                    finished = true;
                    throw f.failure() instanceof IOException io ? io : new IOException(f.failure().getMessage(), f.failure());
                }
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the upstream stream");
        }
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
