package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

/**
 * Complete server-sent-event frames, ready for {@link MockResponse.StreamBuilder#event(String)}:
 * every method returns the exact text to put on the wire, blank line included.
 *
 * <p>The {@code openAi*} frames are OpenAI-compatible {@code chat.completion.chunk}s
 * ({@code data: {...}\n\n}, id {@code chatcmpl-mock}, model {@code mock-model}). The other frames
 * are Anthropic Messages stream events, named after their {@code type}
 * ({@code event: <type>\ndata: {...}\n\n}). Text arguments are JSON-escaped.
 *
 * <pre>{@code
 * MockResponse.stream()
 *         .event(SseEvents.openAiRole())
 *         .event(SseEvents.openAiReasoning("Let me think"))
 *         .pause(Duration.ofSeconds(2))
 *         .event(SseEvents.openAiDelta("Hello"))
 *         .event(SseEvents.openAiFinish("stop"))
 *         .event(SseEvents.DONE)
 *         .thenEnd();
 * }</pre>
 */
public final class SseEvents {

    /** The OpenAI end-of-stream frame, {@code data: [DONE]\n\n}. */
    public static final String DONE = "data: [DONE]\n\n";

    private static final String MODEL = OpenAiJson.DEFAULT_MODEL;

    private SseEvents() {
    }

    /**
     * A data-only frame: {@code data: <payload>\n\n}.
     *
     * @param payload the payload, on one line
     * @return the frame
     * @throws IllegalArgumentException if the payload contains a line break
     */
    public static String data(String payload) {
        return "data: " + oneLine(payload, "payload") + "\n\n";
    }

    /**
     * A named frame: {@code event: <type>\ndata: <payload>\n\n}.
     *
     * @param type the event type, e.g. {@code content_block_delta}
     * @param payload the payload, on one line
     * @return the frame
     * @throws IllegalArgumentException if the type or the payload contains a line break
     */
    public static String event(String type, String payload) {
        return "event: " + oneLine(type, "type") + "\n" + data(payload);
    }

    /**
     * A comment frame, which SSE clients ignore and proxies use as a keep-alive:
     * {@code : <text>\n\n}.
     *
     * @param text the comment, e.g. {@code keep-alive}
     * @return the frame
     * @throws IllegalArgumentException if the text contains a line break
     */
    public static String comment(String text) {
        return ": " + oneLine(text, "text") + "\n\n";
    }

    /**
     * The opening OpenAI chunk: {@code delta: {"role":"assistant","content":""}}. Carries no output.
     *
     * @return the frame
     */
    public static String openAiRole() {
        return data(OpenAiJson.firstChunk(MODEL, ""));
    }

    /**
     * An OpenAI content chunk: {@code delta: {"content": <content>}}.
     *
     * @param content the content delta
     * @return the frame
     */
    public static String openAiDelta(String content) {
        return openAiChunk("{\"content\":" + OpenAiJson.quote(requireNonNull(content, "content is null")) + "}", "null");
    }

    /**
     * An OpenAI-compatible reasoning chunk (DeepSeek, vLLM and others):
     * {@code delta: {"reasoning_content": <text>}}.
     *
     * @param text the reasoning delta
     * @return the frame
     */
    public static String openAiReasoning(String text) {
        return openAiChunk("{\"reasoning_content\":" + OpenAiJson.quote(requireNonNull(text, "text is null")) + "}", "null");
    }

    /**
     * The closing OpenAI chunk: an empty delta with this {@code finish_reason} and usage
     * 3 + 5 = 8 tokens. Follow it with {@link #DONE}.
     *
     * @param reason the finish reason, e.g. {@code stop} or {@code length}
     * @return the frame
     */
    public static String openAiFinish(String reason) {
        return data(OpenAiJson.finishChunk(MODEL, OpenAiJson.quote(requireNonNull(reason, "reason is null"))));
    }

    private static String openAiChunk(String delta, String finishReason) {
        return data(OpenAiJson.chunk(MODEL, delta, finishReason));
    }

    /**
     * Anthropic {@code message_start}: an empty assistant message with usage 3 input / 1 output
     * tokens.
     *
     * @param model the model name to report
     * @return the frame
     */
    public static String messageStart(String model) {
        return event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_mock\",\"type\":\"message\","
                + "\"role\":\"assistant\",\"model\":" + OpenAiJson.quote(requireNonNull(model, "model is null"))
                + ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,"
                + "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}");
    }

    /**
     * Anthropic {@code content_block_start} of an empty text block.
     *
     * @param index the block index
     * @return the frame
     */
    public static String textBlockStart(int index) {
        return blockStart(index, "{\"type\":\"text\",\"text\":\"\"}");
    }

    /**
     * Anthropic {@code content_block_start} of an empty thinking block.
     *
     * @param index the block index
     * @return the frame
     */
    public static String thinkingBlockStart(int index) {
        return blockStart(index, "{\"type\":\"thinking\",\"thinking\":\"\"}");
    }

    private static String blockStart(int index, String block) {
        return event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index(index)
                + ",\"content_block\":" + block + "}");
    }

    /**
     * Anthropic {@code content_block_delta} with a {@code text_delta}: model output.
     *
     * @param index the block index
     * @param text the text delta
     * @return the frame
     */
    public static String textDelta(int index, String text) {
        return blockDelta(index, "{\"type\":\"text_delta\",\"text\":" + OpenAiJson.quote(requireNonNull(text, "text is null")) + "}");
    }

    /**
     * Anthropic {@code content_block_delta} with a {@code thinking_delta}: reasoning, not output.
     *
     * @param index the block index
     * @param thinking the thinking delta; may be empty
     * @return the frame
     */
    public static String thinkingDelta(int index, String thinking) {
        return blockDelta(index, "{\"type\":\"thinking_delta\",\"thinking\":"
                + OpenAiJson.quote(requireNonNull(thinking, "thinking is null")) + "}");
    }

    private static String blockDelta(int index, String delta) {
        return event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index(index)
                + ",\"delta\":" + delta + "}");
    }

    /**
     * Anthropic {@code content_block_stop}.
     *
     * @param index the block index
     * @return the frame
     */
    public static String contentBlockStop(int index) {
        return event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index(index) + "}");
    }

    /**
     * Anthropic {@code message_delta} with this stop reason and 5 output tokens.
     *
     * @param stopReason the stop reason, e.g. {@code end_turn}
     * @return the frame
     */
    public static String messageDelta(String stopReason) {
        return event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                + OpenAiJson.quote(requireNonNull(stopReason, "stopReason is null"))
                + ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}");
    }

    /**
     * Anthropic {@code message_stop}: the last event of a message.
     *
     * @return the frame
     */
    public static String messageStop() {
        return event("message_stop", "{\"type\":\"message_stop\"}");
    }

    /**
     * Anthropic {@code ping}: a heartbeat that carries no output.
     *
     * @return the frame
     */
    public static String ping() {
        return event("ping", "{\"type\":\"ping\"}");
    }

    private static int index(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("index is negative: " + index);
        }
        return index;
    }

    private static String oneLine(String text, String what) {
        requireNonNull(text, what + " is null");
        if (text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
            throw new IllegalArgumentException(what + " must be one line: " + text);
        }
        return text;
    }
}
