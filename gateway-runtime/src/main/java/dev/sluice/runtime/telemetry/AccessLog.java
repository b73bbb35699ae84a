package dev.sluice.runtime.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The JSON access log: one line per client request, written off the request path (a bounded queue
 * and one writer thread; lines are dropped and counted rather than slowing requests). Carries ids,
 * never a key, a credential or a request body.
 */
public final class AccessLog implements AutoCloseable {

    /** A rotated file grows to this size before it is rotated. */
    public static final long MAX_FILE_BYTES = 10L * 1024 * 1024;
    /** Rotated files kept besides the current one. */
    public static final int KEPT_FILES = 5;
    /** Lines queued at most. */
    static final int QUEUE_CAPACITY = 16_384;

    private static final System.Logger LOG = System.getLogger(AccessLog.class.getName());
    private static final JsonFactory JSON = new JsonFactory();

    /** Where lines go; used by the writer thread only. */
    interface Sink extends AutoCloseable {
        void write(String line) throws IOException;

        void flush() throws IOException;

        @Override
        void close() throws IOException;
    }

    /** No access log. */
    public static final AccessLog OFF = new AccessLog(null, 1);

    private final Sink sink;
    private final BlockingQueue<String> queue;
    private final Thread worker;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Object flushMonitor = new Object();
    private volatile boolean closed;

    private AccessLog(Sink sink, int capacity) {
        this.sink = sink;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.worker = sink == null ? null : Thread.ofPlatform().daemon().name("sluice-access-log").start(this::run);
    }

    /**
     * Opens the log at its configured destination.
     *
     * @param destination {@code stdout}, {@code off}, or a file path
     * @param stdout standard output
     * @return the log
     * @throws UncheckedIOException when the file cannot be opened
     */
    public static AccessLog open(String destination, PrintStream stdout) {
        return switch (destination) {
            case "off" -> OFF;
            case "stdout" -> new AccessLog(new Sink() {
                @Override
                public void write(String line) {
                    stdout.println(line);
                }

                @Override
                public void flush() {
                    stdout.flush();
                }

                @Override
                public void close() {
                    stdout.flush();
                }
            }, QUEUE_CAPACITY);
            default -> {
                try {
                    yield new AccessLog(new RotatingFile(Path.of(destination), MAX_FILE_BYTES, KEPT_FILES), QUEUE_CAPACITY);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot open the access log " + destination + ": " + e.getMessage(), e);
                }
            }
        };
    }

    /**
     * Queues the line of a finished request; never blocks.
     *
     * @param r the request
     * @param status the HTTP status answered
     * @param latencyMs arrival to last byte, ms
     */
    void log(RequestRecord r, int status, long latencyMs) {
        if (sink == null) {
            return;
        }
        String line = line(r, status, latencyMs);
        pending.incrementAndGet();
        if (closed || !queue.offer(line)) {
            pending.decrementAndGet();
            dropped.incrementAndGet();
        }
    }

    /** The JSON line; fields without a value are left out. */
    static String line(RequestRecord r, int status, long latencyMs) {
        StringWriter w = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeStringField("time", Instant.ofEpochMilli(r.startedAtMs()).toString());
            g.writeStringField("requestId", r.requestId());
            field(g, "keyId", r.keyId());
            g.writeStringField("method", r.method());
            g.writeStringField("path", r.path());
            g.writeStringField("api", r.api());
            field(g, "model", r.requestedModel());
            field(g, "provider", r.provider());
            field(g, "connectionId", r.connectionId());
            field(g, "upstreamModel", r.model());
            g.writeNumberField("status", status);
            g.writeNumberField("latencyMs", latencyMs);
            g.writeNumberField("attempts", r.attempts());
            field(g, "failure", r.failure());
            field(g, "errorCode", r.errorCode());
            if (!r.heldBack().isEmpty()) {
                g.writeArrayFieldStart("heldBack");
                for (String h : r.heldBack()) {
                    int colon = h.lastIndexOf(':');
                    g.writeStartObject();
                    g.writeStringField("connectionId", h.substring(0, colon));
                    g.writeStringField("reason", h.substring(colon + 1));
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (r.streamEnding() != null) {
                g.writeStringField("stream", r.streamEnding().name().toLowerCase(java.util.Locale.ROOT));
            }
            TokenCounts t = r.tokens();
            if (t.known()) {
                g.writeObjectFieldStart("tokens");
                number(g, "prompt", t.prompt());
                number(g, "completion", t.completion());
                number(g, "cached", t.cached());
                number(g, "reasoning", t.reasoning());
                g.writeEndObject();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    private static void field(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }

    private static void number(JsonGenerator g, String name, Long value) throws IOException {
        if (value != null) {
            g.writeNumberField(name, value);
        }
    }

    /** @return lines dropped because the queue was full or a write failed */
    public long dropped() {
        return dropped.get();
    }

    /**
     * Blocks until every line queued before the call is written (tests, shutdown).
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
        List<String> batch = new ArrayList<>(256);
        while (!closed || !queue.isEmpty()) {
            try {
                String first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, 255);
                try {
                    for (String line : batch) {
                        sink.write(line);
                    }
                    sink.flush();
                } catch (IOException | RuntimeException e) {
                    dropped.addAndGet(batch.size());
                    LOG.log(System.Logger.Level.WARNING, "could not write " + batch.size() + " access log lines: " + e.getMessage());
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

    @Override
    public void close() {
        if (sink == null) {
            return;
        }
        flush(Duration.ofSeconds(5));
        closed = true;
        worker.interrupt();
        try {
            worker.join(5000);
            sink.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not close the access log: " + e.getMessage());
        }
    }
}
