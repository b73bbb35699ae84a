package dev.sluice.runtime.stream;

import java.io.InputStream;

/**
 * An OpenAI Responses stream passed through byte for byte, read as events so the watchdogs can
 * tell what each proves (SPEC §15): {@code response.output_text.delta} (and a refusal's) is
 * content; function-call and custom-tool input deltas, reasoning deltas, an output item other than
 * a message, and the progress events of built-in tools ({@code response.web_search_call.*}, …) are
 * tool calls or reasoning (they suspend the throughput judgement); a finished output item is
 * activity; {@code response.completed} and {@code response.incomplete} are a finish;
 * {@code response.created}, {@code …in_progress}, content-part and {@code …done} repeats prove
 * nothing; a comment is a heartbeat. {@code response.failed} and {@code error} end the stream.
 */
public final class ResponsesSseEvents extends SseEventReader {

    private static final Signal TOOL_OR_REASONING = new Signal(false, true, true, true, 0);
    private static final Signal FINISH = new Signal(false, true, false, false, 0);


    /**
     * Reads the events of an upstream body, each at most {@code maxEventBytes} bytes.
     *
     * @param in the upstream body
     * @param onClose closes the upstream response
     * @param maxEventBytes the largest event accepted ({@code upstream.maxEventBytes})
     */
    public ResponsesSseEvents(InputStream in, Runnable onClose, int maxEventBytes) {
        super(in, onClose, maxEventBytes);
    }

    @Override
    protected Signal signal(String type, String data) {
        return signalOf(type, data);
    }

    @Override
    protected boolean ends(String type) {
        return "response.completed".equals(type) || "response.incomplete".equals(type) || "response.failed".equals(type)
                || "error".equals(type);
    }

    @Override
    protected String terminalName() {
        return "response.completed";
    }

    /** What a Responses event proves. */
    static Signal signalOf(String type, String data) {
        if (type == null) {
            return Signal.HEARTBEAT;
        }
        return switch (type) {
            case "response.output_text.delta" -> new Signal(false, true, true, false,
                    data == null ? 0 : stringBytes(data, "\"delta\":\""));
            case "response.refusal.delta" -> new Signal(false, true, true, false, 0);
            case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta",
                    "response.mcp_call_arguments.delta", "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
                    "response.reasoning_summary_part.added" -> TOOL_OR_REASONING;
            case "response.output_item.added" -> "message".equals(stringAfter(data, "\"type\"", itemAt(data)))
                    ? Signal.NOTHING : TOOL_OR_REASONING;
            case "response.output_item.done" -> new Signal(false, true, true, false, 0);
            case "response.completed", "response.incomplete" -> FINISH;
            default -> builtInTool(type) ? TOOL_OR_REASONING : Signal.NOTHING;
        };
    }

    /** The progress events of the upstream's own tools: {@code response.web_search_call.searching}, … */
    private static boolean builtInTool(String type) {
        return type.startsWith("response.") && type.indexOf("_call.") > 0;
    }

    /** Where the {@code item} object starts in an output-item event (its own {@code type} follows). */
    private static int itemAt(String data) {
        if (data == null) {
            return 0;
        }
        int at = data.indexOf("\"item\"");
        return at < 0 ? data.length() : at + 6;
    }
}
