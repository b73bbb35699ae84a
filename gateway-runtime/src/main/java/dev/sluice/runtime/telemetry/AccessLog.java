package dev.sluice.runtime.telemetry;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.runtime.io.BackgroundBatches;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

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
    /** The lines on their way to the sink; null when the log is off. */
    private final BackgroundBatches<String> batches;

    private AccessLog(Sink sink, int capacity) {
        this.sink = sink;
        this.batches = sink == null ? null : new BackgroundBatches<>("sluice-access-log", capacity, 256, "access log lines", lines -> {
            for (String line : lines) {
                sink.write(line);
            }
            sink.flush();
        });
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
        batches.offer(line(r, status, latencyMs));
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
        return batches == null ? 0 : batches.dropped();
    }

    /**
     * Blocks until every line queued before the call is written (tests, shutdown).
     *
     * @param timeout the most to wait
     * @return true when drained in time
     */
    public boolean flush(Duration timeout) {
        return batches == null || batches.flush(timeout);
    }

    @Override
    public void close() {
        if (sink == null) {
            return;
        }
        batches.close();
        try {
            sink.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not close the access log: " + e.getMessage());
        }
    }
}
