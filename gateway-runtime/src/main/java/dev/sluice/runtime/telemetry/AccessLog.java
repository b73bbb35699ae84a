package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.io.BackgroundBatches;
import dev.sluice.runtime.stream.StreamEnding;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

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

    /** The {@code stream} values, by ordinal of {@link StreamEnding}. */
    private static final String[] ENDINGS = Arrays.stream(StreamEnding.values())
            .map(e -> e.name().toLowerCase(Locale.ROOT)).toArray(String[]::new);

    /** Where lines go; used by the writer thread only. */
    interface Sink extends AutoCloseable {
        /**
         * Writes one line, its line end included.
         *
         * @param line the line
         * @throws IOException when it cannot be written
         */
        void write(CharSequence line) throws IOException;

        void flush() throws IOException;

        @Override
        void close() throws IOException;
    }

    /** No access log. */
    public static final AccessLog OFF = new AccessLog(null, 1);

    private final Sink sink;
    /** The lines on their way to the sink; null when the log is off. */
    private final BackgroundBatches<Entry> batches;

    private AccessLog(Sink sink, int capacity) {
        this.sink = sink;
        this.batches = sink == null ? null : new BackgroundBatches<>("sluice-access-log", capacity, 512, "access log lines",
                BackgroundBatches.LINGER, entries -> {
            StringBuilder b = new StringBuilder(512);
            for (Entry e : entries) {
                b.setLength(0);
                sink.write(append(b, e.r(), e.status(), e.latencyMs()).append('\n'));
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
                public void write(CharSequence line) {
                    stdout.append(line);
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
     * Queues the line of a finished request; never blocks. The line is formatted by the writer
     * thread, not here (issue 26): a finished record no longer changes.
     *
     * @param r the request
     * @param status the HTTP status answered
     * @param latencyMs arrival to last byte, ms
     */
    void log(RequestRecord r, int status, long latencyMs) {
        if (sink == null) {
            return;
        }
        batches.offer(new Entry(r, status, latencyMs));
    }

    /** A finished request waiting for its line. */
    private record Entry(RequestRecord r, int status, long latencyMs) {
    }

    /** The JSON line; fields without a value are left out. */
    static String line(RequestRecord r, int status, long latencyMs) {
        return append(new StringBuilder(320), r, status, latencyMs).toString();
    }

    /**
     * Appends the JSON line (without its line end) with a hand-written formatter: no generator, no
     * tree, no per-field objects; strings escaped as JSON requires.
     */
    static StringBuilder append(StringBuilder b, RequestRecord r, int status, long latencyMs) {
        b.append("{\"time\":\"");
        Timestamps.appendInstant(b, r.startedAtMs());
        b.append('"');
        field(b, "requestId", r.requestId());
        field(b, "keyId", r.keyId());
        field(b, "method", r.method());
        field(b, "path", r.path());
        field(b, "api", r.api());
        field(b, "model", r.requestedModel());
        field(b, "provider", r.provider());
        field(b, "connectionId", r.connectionId());
        field(b, "upstreamModel", r.model());
        b.append(",\"status\":").append(status);
        b.append(",\"latencyMs\":").append(latencyMs);
        b.append(",\"attempts\":").append(r.attempts());
        field(b, "failure", r.failure());
        field(b, "errorCode", r.errorCode());
        if (!r.heldBack().isEmpty()) {
            b.append(",\"heldBack\":[");
            boolean first = true;
            for (String h : r.heldBack()) {
                int colon = h.lastIndexOf(':');
                b.append(first ? "{" : ",{");
                first = false;
                b.append("\"connectionId\":");
                JsonText.string(b, h.substring(0, colon));
                b.append(",\"reason\":");
                JsonText.string(b, h.substring(colon + 1));
                b.append('}');
            }
            b.append(']');
        }
        if (r.streamEnding() != null) {
            field(b, "stream", ENDINGS[r.streamEnding().ordinal()]);
        }
        TokenCounts t = r.tokens();
        if (t.known()) {
            b.append(",\"tokens\":{");
            int start = b.length();
            number(b, "prompt", t.prompt(), start);
            number(b, "completion", t.completion(), start);
            number(b, "cached", t.cached(), start);
            number(b, "reasoning", t.reasoning(), start);
            b.append('}');
        }
        return b.append('}');
    }

    private static void field(StringBuilder b, String name, String value) {
        if (value != null) {
            b.append(",\"").append(name).append("\":");
            JsonText.string(b, value);
        }
    }

    private static void number(StringBuilder b, String name, Long value, int start) {
        if (value != null) {
            b.append(b.length() == start ? "\"" : ",\"").append(name).append("\":").append(value.longValue());
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
