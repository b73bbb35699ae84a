package dev.sluice.runtime.stream;

import dev.sluice.runtime.io.SseLineReader;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * An Anthropic Messages stream passed through byte for byte, read as events so the watchdogs can
 * tell what each proves (SPEC §15): a {@code content_block_delta} of text is content, of
 * {@code input_json} a tool call, of {@code thinking}/{@code signature} reasoning; a
 * {@code content_block_start} of a tool use or a thinking block is useful; {@code message_delta}
 * with a stop reason and {@code message_stop} are a finish; {@code message_start},
 * {@code content_block_stop} and comments prove nothing; {@code ping} is a heartbeat. The bytes of
 * every event are kept exactly as received.
 */
public final class AnthropicSseEvents implements Pump.Source<SseEvent> {

    /**
     * The largest event accepted (a huge tool input arrives in many deltas, never in one event):
     * the runtime's one SSE event limit, {@link SseLineReader#MAX_EVENT_CHARS}.
     */
    static final int MAX_EVENT_BYTES = SseLineReader.MAX_EVENT_CHARS;

    private final InputStream in;
    private final Runnable onClose;
    /** A message_stop or an error event was read: the stream ended as a stream should. */
    private boolean ended;

    /**
     * Reads events.
     *
     * @param in the upstream body
     * @param onClose closes the upstream response
     */
    public AnthropicSseEvents(InputStream in, Runnable onClose) {
        // buffered: a read returns what has arrived, it does not wait for a full buffer
        this.in = new BufferedInputStream(in, 8192);
        this.onClose = onClose;
    }

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
            if (raw.size() > MAX_EVENT_BYTES) {
                // a protocol error of the upstream (TransportErrorKind.PROTOCOL), not a network failure
                throw new java.net.ProtocolException("the upstream sent a stream event larger than " + MAX_EVENT_BYTES
                        + " bytes (the gateway's limit per server-sent event)");
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
            throw new java.io.EOFException("the upstream closed the stream before it finished (no message_stop)");
        }
        return null;
    }

    private SseEvent event(String type, StringBuilder data, byte[] bytes) {
        String d = data == null ? null : data.toString();
        // an event without its event: line is named by its data's "type", as Anthropic's SDKs read it
        String named = type != null ? type : typeOf(d);
        if ("message_stop".equals(named) || "error".equals(named)) {
            ended = true;
        }
        return new SseEvent(named, d, bytes, signal(named, d));
    }

    /** The value of the data's first {@code "type"} field, or null. */
    static String typeOf(String data) {
        if (data == null) {
            return null;
        }
        int at = data.indexOf("\"type\"");
        if (at < 0) {
            return null;
        }
        int open = data.indexOf('"', data.indexOf(':', at) + 1);
        int close = open < 0 ? -1 : data.indexOf('"', open + 1);
        return close < 0 ? null : data.substring(open + 1, close);
    }

    /** What an Anthropic event proves. */
    static Signal signal(String type, String data) {
        if (type == null) {
            return Signal.NOTHING;
        }
        return switch (type) {
            case "ping" -> Signal.HEARTBEAT;
            case "content_block_delta" -> delta(data);
            case "content_block_start" -> data != null && (data.contains("\"tool_use\"") || data.contains("\"thinking\"")
                    || data.contains("\"redacted_thinking\"") || data.contains("\"server_tool_use\""))
                    ? new Signal(false, true, true, true, 0) : Signal.NOTHING;
            case "message_delta" -> data != null && data.contains("\"stop_reason\"") && !data.contains("\"stop_reason\":null")
                    ? new Signal(false, true, false, false, 0) : Signal.NOTHING;
            case "message_stop" -> new Signal(false, true, false, false, 0);
            default -> Signal.NOTHING;
        };
    }

    private static Signal delta(String data) {
        if (data == null) {
            return Signal.NOTHING;
        }
        if (data.contains("\"text_delta\"")) {
            return new Signal(false, true, true, false, textBytes(data));
        }
        if (data.contains("\"input_json_delta\"") || data.contains("\"thinking_delta\"") || data.contains("\"signature_delta\"")) {
            return new Signal(false, true, true, true, 0);
        }
        // a delta of a kind this version does not know is content all the same
        return new Signal(false, true, true, false, 0);
    }

    /** The UTF-8 length of the delta's {@code "text"} value, escapes counted as one character (a close enough measure). */
    static int textBytes(String data) {
        int at = data.indexOf("\"text\":\"");
        if (at < 0) {
            return 0;
        }
        int n = 0;
        for (int i = at + 8; i < data.length(); i++) {
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
