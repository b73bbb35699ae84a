package dev.sluice.runtime.stream;

import dev.sluice.toolkit.sse.SseLineReader;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A stream of server-sent events passed through byte for byte, read event by event so the
 * watchdogs can tell what each proves (SPEC §15). The bytes of every event are kept exactly as
 * received; what an event proves and which events end a stream are the dialect's.
 */
public abstract class SseEventReader implements Pump.Source<SseEvent> {

    /**
     * The largest event accepted (a huge tool input arrives in many deltas, never in one event):
     * the runtime's one SSE event limit, {@link SseLineReader#MAX_EVENT_CHARS}.
     */
    static final int MAX_EVENT_BYTES = SseLineReader.MAX_EVENT_CHARS;

    private final InputStream in;
    private final int maxEventBytes;
    private final Runnable onClose;
    /** An event that ends the stream (a finish or an error) was read. */
    private boolean ended;


    /**
     * Reads events of at most {@code maxEventBytes} bytes each ({@code upstream.maxEventBytes}).
     *
     * @param in the upstream body
     * @param onClose closes the upstream response
     * @param maxEventBytes the largest event accepted
     */
    protected SseEventReader(InputStream in, Runnable onClose, int maxEventBytes) {
        // buffered: a read returns what has arrived, it does not wait for a full buffer
        this.in = new BufferedInputStream(in, 8192);
        this.onClose = onClose;
        this.maxEventBytes = maxEventBytes;
    }

    /**
     * What an event proves.
     *
     * @param type the event's name (its {@code event:} line, else its data's {@code type}), or null
     * @param data its data, or null
     * @return the signal
     */
    protected abstract Signal signal(String type, String data);

    /**
     * Whether an event ends the stream as a stream should end (its finish, or an error).
     *
     * @param type the event's name, or null
     * @return true for a terminal event
     */
    protected abstract boolean ends(String type);

    /**
     * The name of the terminal event, for the message of a stream cut before it.
     *
     * @return e.g. {@code message_stop}
     */
    protected abstract String terminalName();

    @Override
    public SseEvent next() throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream(256);
        StringBuilder line = new StringBuilder();
        String type = null;
        StringBuilder data = null;
        boolean any = false;
        int b;
        while ((b = in.read()) >= 0) {
            raw.write(b);
            if (raw.size() > maxEventBytes) {
                // a protocol error of the upstream (TransportErrorKind.PROTOCOL), not a network failure
                throw new java.net.ProtocolException("the upstream sent a stream event larger than " + maxEventBytes
                        + " bytes (upstream.maxEventBytes, the gateway's limit per server-sent event)");
            }
            if (b == '\r') {
                continue;
            }
            if (b != '\n') {
                line.append((char) b);
                any = true;
                continue;
            }
            if (line.isEmpty()) {
                if (any) {
                    return event(type, data, raw.toByteArray());
                }
                raw.reset();
                continue;
            }
            String l = new String(line.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
            line.setLength(0);
            if (l.startsWith("event:")) {
                type = l.substring(6).strip();
            } else if (l.startsWith("data:")) {
                String d = l.substring(5);
                d = d.startsWith(" ") ? d.substring(1) : d;
                data = data == null ? new StringBuilder(d) : data.append('\n').append(d);
            }
        }
        if (any) {
            // the last event without its blank line: still relayed as received
            return event(type, data, raw.toByteArray());
        }
        if (!ended) {
            // a truncated answer must never look complete
            throw new EOFException("the upstream closed the stream before it finished (no " + terminalName() + ")");
        }
        return null;
    }

    private SseEvent event(String type, StringBuilder data, byte[] bytes) {
        String d = data == null ? null : data.toString();
        // an event without its event: line is named by its data's "type", as the SDKs read it
        String named = type != null ? type : typeOf(d);
        if (ends(named)) {
            ended = true;
        }
        return new SseEvent(named, d, bytes, signal(named, d));
    }

    /**
     * The value of the data's first {@code "type"} field, or null.
     *
     * @param data an event's data
     * @return the type
     */
    static String typeOf(String data) {
        return stringAfter(data, "\"type\"", 0);
    }

    /** The string value of the first {@code key} at or after {@code from}, or null. */
    static String stringAfter(String data, String key, int from) {
        if (data == null) {
            return null;
        }
        int at = data.indexOf(key, from);
        if (at < 0) {
            return null;
        }
        int colon = data.indexOf(':', at + key.length());
        int open = colon < 0 ? -1 : data.indexOf('"', colon + 1);
        int close = open < 0 ? -1 : data.indexOf('"', open + 1);
        return close < 0 ? null : data.substring(open + 1, close);
    }

    /**
     * The UTF-8 length of a JSON string value that starts after {@code marker}, escapes counted as
     * one character (a close enough measure).
     *
     * @param data the event's data
     * @param marker e.g. {@code "text":"}
     * @return the length, or 0 when absent
     */
    static int stringBytes(String data, String marker) {
        int at = data.indexOf(marker);
        if (at < 0) {
            return 0;
        }
        int n = 0;
        for (int i = at + marker.length(); i < data.length(); i++) {
            char c = data.charAt(i);
            if (c == '"') {
                break;
            }
            if (c == '\\') {
                i++;
            }
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return n;
    }

    @Override
    public void close() {
        onClose.run();
    }
}
