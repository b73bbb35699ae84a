package dev.sluice.runtime.stream;

import static java.util.Objects.requireNonNull;

/**
 * One raw server-sent event of a stream passed through byte for byte: its bytes as the upstream
 * sent them (blank line included), its {@code event:} name, its {@code data:} text, and what it
 * proves to the watchdogs.
 *
 * @param type the {@code event:} name, or null for a comment or an unnamed event
 * @param data the {@code data:} text (lines joined by a newline), or null
 * @param bytes the event's bytes, exactly as received
 * @param signal what it proves
 */
public record SseEvent(String type, String data, byte[] bytes, Signal signal) {

    /** Validates. */
    public SseEvent {
        requireNonNull(bytes, "bytes is null");
        requireNonNull(signal, "signal is null");
    }

    /**
     * The event's size for the stream's memory bounds: its bytes as received (its data text and its
     * rendering are of the same order).
     *
     * @param e the event
     * @return its byte count
     */
    public static int size(SseEvent e) {
        return e.bytes.length;
    }
}
