package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns Anthropic stream events, one at a time, into canonical chunks (OpenAI
 * {@code chat.completion.chunk} shape) and remembers only what later events need: the message id
 * and model, the usage of {@code message_start}, and per content block its type and tool-call
 * ordinal. Nothing of the content is kept.
 *
 * <table>
 *   <caption>Event translation</caption>
 *   <tr><th>event</th><th>chunk</th></tr>
 *   <tr><td>{@code message_start}</td><td>nothing yet: role {@code assistant} goes out with the next chunk</td></tr>
 *   <tr><td>{@code content_block_start} text / thinking</td><td>none (unless it carries text)</td></tr>
 *   <tr><td>{@code content_block_start} tool_use</td><td>tool-call piece with index, id, name, {@code ""} ({@link FrameKind#CONTENT})</td></tr>
 *   <tr><td>{@code text_delta}</td><td>content ({@link FrameKind#CONTENT})</td></tr>
 *   <tr><td>{@code input_json_delta}</td><td>tool-call arguments piece ({@link FrameKind#CONTENT})</td></tr>
 *   <tr><td>{@code thinking_delta}</td><td>{@code reasoning_content}, even when empty ({@link FrameKind#REASONING}, SPEC ST-1)</td></tr>
 *   <tr><td>{@code signature_delta}, {@code citations_delta}</td><td>none</td></tr>
 *   <tr><td>{@code content_block_stop} of a tool call that got no arguments</td><td>arguments {@code "{}"}</td></tr>
 *   <tr><td>{@code message_delta}</td><td>finish reason and usage ({@link FrameKind#METADATA})</td></tr>
 *   <tr><td>{@code message_stop}</td><td>end of stream</td></tr>
 *   <tr><td>{@code ping}</td><td>{@link StreamChunk#heartbeat}</td></tr>
 *   <tr><td>{@code error}</td><td>{@link IOException} naming the error type and message</td></tr>
 *   <tr><td>anything else</td><td>none (Anthropic may add event types)</td></tr>
 * </table>
 * Not thread-safe: one stream, one reader.
 */
final class StreamTranslator {

    private final long created;
    private String id = "";
    private String model = "";
    private Map<String, Object> startUsage = Map.of();
    private final Map<Long, Block> blocks = new HashMap<>();
    private int nextToolOrdinal;
    private boolean stopped;

    /** What is remembered of one content block. */
    private static final class Block {
        final String type;
        final int toolOrdinal;
        final String initialInput;
        boolean argumentsSent;

        Block(String type, int toolOrdinal, String initialInput) {
            this.type = type;
            this.toolOrdinal = toolOrdinal;
            this.initialInput = initialInput;
        }
    }

    /**
     * Creates a translator for one stream.
     *
     * @param created the creation time (epoch seconds) every chunk carries
     */
    StreamTranslator(long created) {
        this.created = created;
    }

    /**
     * Whether {@code message_stop} arrived (the stream finished).
     *
     * @return true after {@code message_stop}
     */
    boolean stopped() {
        return stopped;
    }

    /**
     * Translates one event.
     *
     * @param eventName the SSE event name, or null (the data's {@code type} wins)
     * @param data the event's data
     * @return the chunk to emit, or null when the event has nothing for the client
     * @throws IOException for an {@code error} event or an event that breaks the protocol
     */
    StreamChunk onEvent(String eventName, Map<String, Object> data) throws IOException {
        String type = Json.string(data, "type");
        if (type == null) {
            type = eventName == null ? "" : eventName;
        }
        return switch (type) {
            case "message_start" -> messageStart(data);
            case "content_block_start" -> blockStart(data);
            case "content_block_delta" -> blockDelta(data);
            case "content_block_stop" -> blockStop(data);
            case "message_delta" -> messageDelta(data);
            case "message_stop" -> {
                stopped = true;
                yield null;
            }
            case "ping" -> StreamChunk.heartbeat(id, model);
            case "error" -> {
                Map<String, Object> err = Json.object(data, "error");
                String errType = Json.string(err, "type");
                String message = Json.string(err, "message");
                throw new IOException("upstream sent an error event: " + (errType == null ? "error" : errType)
                        + (message == null ? "" : ": " + message));
            }
            default -> null;
        };
    }

    private StreamChunk messageStart(Map<String, Object> data) {
        Map<String, Object> message = Json.object(data, "message");
        String messageId = Json.string(message, "id");
        String messageModel = Json.string(message, "model");
        if (messageId != null) {
            id = messageId;
        }
        if (messageModel != null) {
            model = messageModel;
        }
        Map<String, Object> usage = Json.object(message, "usage");
        if (usage != null) {
            startUsage = usage;
        }
        // held back: the role travels with the first chunk that has something in it, so that the
        // runtime (which commits to a connection at the first chunk) can still fail over when
        // Anthropic answers message_start and then overloaded_error, as it often does
        rolePending = true;
        return null;
    }

    private StreamChunk blockStart(Map<String, Object> data) throws IOException {
        long index = index(data);
        Map<String, Object> block = Json.object(data, "content_block");
        String type = Json.string(block, "type");
        if (type == null) {
            throw new IOException("upstream sent a content_block_start without a block type");
        }
        switch (type) {
            case "tool_use" -> {
                String callId = Json.string(block, "id");
                String name = Json.string(block, "name");
                if (callId == null || name == null) {
                    throw new IOException("upstream sent a tool_use block without id or name");
                }
                int ordinal = nextToolOrdinal++;
                // the input normally arrives in input_json_delta events after an empty {} here
                Map<String, Object> input = Json.object(block, "input");
                blocks.put(index, new Block(type, ordinal, input == null || input.isEmpty() ? null : Json.write(input)));
                return toolChunk(new ToolCallDelta(ordinal, callId, name, ""));
            }
            case "text" -> {
                blocks.put(index, new Block(type, -1, null));
                String text = Json.string(block, "text");
                return text == null || text.isEmpty() ? null : contentChunk(text);
            }
            case "thinking" -> {
                blocks.put(index, new Block(type, -1, null));
                String thinking = Json.string(block, "thinking");
                return thinking == null || thinking.isEmpty() ? null : reasoningChunk(thinking);
            }
            default -> {
                blocks.put(index, new Block(type, -1, null));
                return null;
            }
        }
    }

    private StreamChunk blockDelta(Map<String, Object> data) throws IOException {
        Map<String, Object> delta = Json.object(data, "delta");
        String type = Json.string(delta, "type");
        if (type == null) {
            return null;
        }
        switch (type) {
            case "text_delta" -> {
                String text = Json.string(delta, "text");
                return text == null || text.isEmpty() ? null : contentChunk(text);
            }
            case "input_json_delta" -> {
                Block block = blocks.get(index(data));
                if (block == null || block.toolOrdinal < 0) {
                    throw new IOException("upstream sent input_json_delta for content block " + index(data)
                            + ", which is not a tool_use block");
                }
                String partial = Json.string(delta, "partial_json");
                if (partial == null || partial.isEmpty()) {
                    return null;
                }
                block.argumentsSent = true;
                return toolChunk(new ToolCallDelta(block.toolOrdinal, null, null, partial));
            }
            case "thinking_delta" -> {
                // even an empty thinking delta is reasoning progress for the stall watchdog (ST-1)
                String thinking = Json.string(delta, "thinking");
                return reasoningChunk(thinking == null ? "" : thinking);
            }
            default -> {
                // signature_delta, citations_delta, …: nothing the canonical chunk can carry
                return null;
            }
        }
    }

    private StreamChunk blockStop(Map<String, Object> data) throws IOException {
        Block block = blocks.remove(index(data));
        if (block == null || block.toolOrdinal < 0 || block.argumentsSent) {
            return null;
        }
        // a call without arguments: OpenAI clients parse "arguments", and "" is not JSON
        return toolChunk(new ToolCallDelta(block.toolOrdinal, null, null, block.initialInput == null ? "{}" : block.initialInput));
    }

    private StreamChunk messageDelta(Map<String, Object> data) {
        String finish = FieldMapping.finishReason(Json.string(Json.object(data, "delta"), "stop_reason"));
        Map<String, Object> deltaUsage = Json.object(data, "usage");
        if (finish == null && deltaUsage == null) {
            return null;
        }
        // message_delta's usage is cumulative and may repeat the input counts; message_start's fill the gaps
        Map<String, Object> usage = new LinkedHashMap<>(startUsage);
        if (deltaUsage != null) {
            deltaUsage.forEach((k, v) -> {
                if (v != null) {
                    usage.put(k, v);
                }
            });
        }
        if (finish == null && !rolePending) {
            return new StreamChunk(id, model, created, List.of(), FieldMapping.usage(usage), Map.of(), FrameKind.METADATA);
        }
        // through chunk(): when nothing came before (an empty answer), the held role goes out here
        return chunk(new ChunkChoice(0, null, null, List.of(), finish, null), FieldMapping.usage(usage), FrameKind.METADATA);
    }

    private static long index(Map<String, Object> data) throws IOException {
        Long index = Json.number(data, "index");
        if (index == null) {
            throw new IOException("upstream sent a content block event without an index");
        }
        return index;
    }

    private StreamChunk contentChunk(String text) {
        return chunk(new ChunkChoice(0, null, text, List.of(), null, null), null, FrameKind.CONTENT);
    }

    private StreamChunk reasoningChunk(String thinking) {
        return chunk(new ChunkChoice(0, null, null, List.of(), null, thinking), null, FrameKind.REASONING);
    }

    private StreamChunk toolChunk(ToolCallDelta delta) {
        return chunk(new ChunkChoice(0, null, null, List.of(delta), null, null), null, FrameKind.CONTENT);
    }

    private StreamChunk chunk(ChunkChoice choice, dev.sluice.api.chat.Usage usage, FrameKind kind) {
        ChunkChoice c = choice;
        if (rolePending && c.role() == null) {
            c = new ChunkChoice(c.index(), Role.ASSISTANT, c.contentDelta(), c.toolCalls(), c.finishReason(), c.reasoningDelta(),
                    c.deltaExtra(), c.extra());
        }
        rolePending = false;
        return new StreamChunk(id, model, created, List.of(c), usage, Map.of(), kind);
    }

    private boolean rolePending;
}
