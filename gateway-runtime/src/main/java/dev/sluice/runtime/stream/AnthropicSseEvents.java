package dev.sluice.runtime.stream;

import java.io.InputStream;

/**
 * An Anthropic Messages stream passed through byte for byte, read as events so the watchdogs can
 * tell what each proves (SPEC §15): a {@code content_block_delta} of text is content, of
 * {@code input_json} a tool call, of {@code thinking}/{@code signature} reasoning; a
 * {@code content_block_start} of a tool use or a thinking block is useful; {@code message_delta}
 * with a stop reason and {@code message_stop} are a finish; {@code message_start},
 * {@code content_block_stop} and comments prove nothing; {@code ping} is a heartbeat.
 */
public final class AnthropicSseEvents extends SseEventReader {


    /**
     * Reads the events of an upstream body, each at most {@code maxEventBytes} bytes.
     *
     * @param in the upstream body
     * @param onClose closes the upstream response
     * @param maxEventBytes the largest event accepted ({@code upstream.maxEventBytes})
     */
    public AnthropicSseEvents(InputStream in, Runnable onClose, int maxEventBytes) {
        super(in, onClose, maxEventBytes);
    }

    @Override
    protected Signal signal(String type, String data) {
        return signalOf(type, data);
    }

    @Override
    protected boolean ends(String type) {
        return "message_stop".equals(type) || "error".equals(type);
    }

    @Override
    protected String terminalName() {
        return "message_stop";
    }

    /** What an Anthropic event proves. */
    static Signal signalOf(String type, String data) {
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
            return new Signal(false, true, true, false, stringBytes(data, "\"text\":\""));
        }
        if (data.contains("\"input_json_delta\"") || data.contains("\"thinking_delta\"") || data.contains("\"signature_delta\"")) {
            return new Signal(false, true, true, true, 0);
        }
        // a delta of a kind this version does not know is content all the same
        return new Signal(false, true, true, false, 0);
    }
}
