package dev.sluice.toolkit.sse;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * Reads the lines of an upstream's server-sent events with a bound on their length. A
 * {@code BufferedReader} holds any line however long: an upstream that sends 300 MB without a
 * newline exhausted the heap. {@link #readLine()} returns as soon as a line is complete (it never
 * waits for a full buffer), and fails with a {@link ProtocolException} — classified as the
 * upstream's protocol error, {@code TransportErrorKind.PROTOCOL} — once a line passes the limit.
 * Not thread-safe: one reader.
 */
public final class SseLineReader {

    /**
     * The longest server-sent event (and so line) accepted from an upstream, in characters: 4 MiB.
     * Far above any chat chunk (a large tool call or image arrives in many events), and small
     * enough that a few concurrent hostile streams cannot exhaust a 256 MiB heap.
     */
    public static final int MAX_EVENT_CHARS = 4 * 1024 * 1024;

    private final Reader reader;
    private final int maxChars;
    private final char[] buf = new char[8192];
    private int pos;
    private int len;
    private boolean skipLf;
    private final StringBuilder line = new StringBuilder(256);

    /**
     * A reader of UTF-8 lines of at most {@link #MAX_EVENT_CHARS} characters.
     *
     * @param in the body
     */
    public SseLineReader(InputStream in) {
        this(in, MAX_EVENT_CHARS);
    }

    /**
     * A reader of UTF-8 lines of at most {@code maxChars} characters.
     *
     * @param in the body
     * @param maxChars the longest line
     */
    public SseLineReader(InputStream in, int maxChars) {
        this.reader = new InputStreamReader(in, StandardCharsets.UTF_8);
        this.maxChars = maxChars;
    }

    /** @return the limit in characters */
    public int maxChars() {
        return maxChars;
    }

    /**
     * One line without its terminator ({@code \n}, {@code \r\n} or {@code \r}); at the end of the
     * body the unterminated rest, then null.
     *
     * @return the line, or null at the end of the body
     * @throws ProtocolException when the line is longer than the limit
     * @throws IOException when reading fails
     */
    public String readLine() throws IOException {
        line.setLength(0);
        while (true) {
            if (pos >= len) {
                len = reader.read(buf, 0, buf.length); // blocks only until some characters arrived
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    return line.isEmpty() ? null : line.toString();
                }
            }
            if (skipLf) {
                skipLf = false;
                if (buf[pos] == '\n') {
                    pos++;
                    continue;
                }
            }
            int start = pos;
            while (pos < len) {
                char c = buf[pos];
                if (c == '\n' || c == '\r') {
                    String s = line.isEmpty() ? new String(buf, start, pos - start) : line.append(buf, start, pos - start).toString();
                    pos++;
                    skipLf = c == '\r';
                    return check(s.length(), s);
                }
                pos++;
            }
            line.append(buf, start, pos - start);
            check(line.length(), null);
        }
    }

    /**
     * Fails when an event assembled from several lines passes the limit.
     *
     * @param eventChars the event's length so far
     * @throws ProtocolException when it is too long
     */
    public void checkEvent(int eventChars) throws ProtocolException {
        check(eventChars, null);
    }

    private String check(int chars, String s) throws ProtocolException {
        if (chars > maxChars) {
            line.setLength(0);
            line.trimToSize();
            throw new ProtocolException("the upstream sent a stream event longer than " + maxChars
                    + " characters (the gateway's limit per server-sent event)");
        }
        return s;
    }
}
