package dev.sluice.plugin.claude;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * Reads server-sent events one at a time from a body as it arrives: {@link #next()} blocks only
 * until the next complete event (the reader returns whatever the upstream sent, it does not wait
 * for a full buffer), and holds at most one event in memory. Not thread-safe: one reader.
 */
final class SseEventReader {

    /**
     * The largest event (and line) the reader accepts, 4 MiB — the gateway's limit per
     * server-sent event (the runtime's {@code SseLineReader.MAX_EVENT_CHARS}): a bigger one is an
     * upstream fault, not something to buffer, and a few of 16 MiB at once filled a 256 MiB heap.
     */
    static final int MAX_EVENT_CHARS = 4 * 1024 * 1024;

    /**
     * One event.
     *
     * @param name the {@code event:} name, or null when the event had none
     * @param data the {@code data:} lines joined by newlines
     */
    record Event(String name, String data) {
    }

    private final Reader reader;
    private final char[] buf = new char[8192];
    private int pos;
    private int len;
    private boolean skipLf;
    private final StringBuilder lineBuf = new StringBuilder(256);

    SseEventReader(InputStream in) {
        this.reader = new InputStreamReader(in, StandardCharsets.UTF_8);
    }

    /**
     * The next event that carries data.
     *
     * @return the event, or null at the end of the body
     * @throws IOException when reading fails or an event is too large
     */
    Event next() throws IOException {
        String name = null;
        StringBuilder data = null;
        String line;
        while ((line = readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null) {
                    return new Event(name, data.toString());
                }
                name = null; // an event without data is not dispatched (SSE)
                continue;
            }
            if (line.startsWith(":")) {
                continue; // comment
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
                    if (data.length() > MAX_EVENT_CHARS) {
                        throw new ProtocolException("upstream stream event exceeds " + MAX_EVENT_CHARS
                                + " characters (the gateway's limit per server-sent event)");
                    }
                }
                default -> {
                    // id:, retry: and unknown fields carry nothing the translation needs
                }
            }
        }
        // the body ended without the blank line after the last event: hand over what arrived
        return data == null ? null : new Event(name, data.toString());
    }

    /**
     * One line without its terminator ({@code \n}, {@code \r\n} or {@code \r}), bounded in length
     * (a {@code BufferedReader} would hold any line however long); null at the end of the body.
     */
    private String readLine() throws IOException {
        lineBuf.setLength(0);
        while (true) {
            if (pos >= len) {
                len = reader.read(buf, 0, buf.length); // blocks only until some characters arrived
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    return lineBuf.isEmpty() ? null : lineBuf.toString();
                }
            }
            char c = buf[pos++];
            if (skipLf) {
                skipLf = false;
                if (c == '\n') {
                    continue;
                }
            }
            if (c == '\n') {
                return lineBuf.toString();
            }
            if (c == '\r') {
                skipLf = true;
                return lineBuf.toString();
            }
            lineBuf.append(c);
            if (lineBuf.length() > MAX_EVENT_CHARS) {
                throw new ProtocolException("upstream stream line exceeds " + MAX_EVENT_CHARS
                        + " characters (the gateway's limit per server-sent event)");
            }
        }
    }
}
