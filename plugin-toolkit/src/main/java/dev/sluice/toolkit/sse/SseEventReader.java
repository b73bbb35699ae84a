package dev.sluice.toolkit.sse;

import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;

/**
 * Reads server-sent events one at a time from a body as it arrives: {@link #next()} blocks only
 * until the next complete event (it never waits for a full buffer) and holds at most one event in
 * memory. An event (or line) longer than {@link #MAX_EVENT_CHARS} fails with a
 * {@link ProtocolException}, which the runtime classifies as the upstream's protocol error. Not
 * thread-safe: one reader per body.
 */
public final class SseEventReader {

    /**
     * The largest event (and line) accepted, 4 MiB: the gateway's limit per server-sent event. A
     * bigger one is an upstream fault, not something to buffer; a few of 16 MiB at once filled a
     * 256 MiB heap.
     */
    public static final int MAX_EVENT_CHARS = SseLineReader.MAX_EVENT_CHARS;

    /**
     * One event.
     *
     * @param name the {@code event:} name, or null when the event had none
     * @param data the {@code data:} lines joined by newlines
     */
    public record Event(String name, String data) {
    }

    private final SseLineReader lines;

    /**
     * A reader of UTF-8 events of at most {@link #MAX_EVENT_CHARS} characters.
     *
     * @param in the body
     */
    public SseEventReader(InputStream in) {
        this(in, MAX_EVENT_CHARS);
    }

    /**
     * A reader of UTF-8 events of at most {@code maxChars} characters.
     *
     * @param in the body
     * @param maxChars the largest event
     */
    public SseEventReader(InputStream in, int maxChars) {
        this.lines = new SseLineReader(in, maxChars);
    }

    /**
     * The next event that carries data. Comments, {@code id:}, {@code retry:} and events without
     * data are skipped (SSE dispatches no event without data).
     *
     * @return the event, or null at the end of the body
     * @throws ProtocolException when an event is longer than the limit
     * @throws IOException when reading fails
     */
    public Event next() throws IOException {
        String name = null;
        StringBuilder data = null;
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null) {
                    return new Event(name, data.toString());
                }
                name = null;
                continue;
            }
            if (line.startsWith(":")) {
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + (colon + 1 < line.length() && line.charAt(colon + 1) == ' ' ? 2 : 1));
            switch (field) {
                case "event" -> name = value;
                case "data" -> {
                    if (data == null) {
                        data = new StringBuilder(value);
                    } else {
                        data.append('\n').append(value);
                    }
                    lines.checkEvent(data.length());
                }
                default -> {
                    // id:, retry: and unknown fields
                }
            }
        }
        // the body ended without the blank line after the last event: hand over what arrived
        return data == null ? null : new Event(name, data.toString());
    }
}
