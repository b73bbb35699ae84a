package dev.sluice.runtime.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Turns one canonical chunk stream into Anthropic Messages SSE events, chunk by chunk: each call
 * returns the events that chunk produces, to be written and flushed at once (nothing is held back
 * except the final {@code message_delta}, which waits for the end of the stream so that a
 * usage-only chunk after the finish can still be reported).
 *
 * <p>Sequence: {@code message_start} before anything else; one content block per run of the same
 * kind (thinking, text, one per tool call), each opened with {@code content_block_start} and
 * closed with {@code content_block_stop} when the kind changes or the choice finishes; {@code
 * ping} for heartbeats; {@code message_delta} with the stop reason and usage, then {@code
 * message_stop} at the end. Only choice 0 is translated (Anthropic has no {@code n}).
 *
 * <p>Not thread-safe: one per stream, one reader.
 */
public final class AnthropicStreamTranslator {

    private enum Kind { NONE, TEXT, THINKING, TOOL }

    /** The event types, each with its {@code event:} line encoded once rather than once per event. */
    private enum Event {
        MESSAGE_START("message_start"),
        CONTENT_BLOCK_START("content_block_start"),
        CONTENT_BLOCK_DELTA("content_block_delta"),
        CONTENT_BLOCK_STOP("content_block_stop"),
        MESSAGE_DELTA("message_delta"),
        MESSAGE_STOP("message_stop"),
        ERROR("error");

        final String type;
        /** {@code event: <type>\ndata: } */
        final byte[] head;

        Event(String type) {
            this.type = type;
            this.head = ("event: " + type + "\ndata: ").getBytes(StandardCharsets.US_ASCII);
        }
    }

    private static final byte[] PING = "event: ping\ndata: {\"type\":\"ping\"}\n\n".getBytes(StandardCharsets.US_ASCII);

    private final JsonFactory factory;
    private final String fallbackId;
    private final String fallbackModel;

    private boolean started;
    private boolean ended;
    private Kind open = Kind.NONE;
    private int openIndex = -1;
    private int openToolIndex = -1;
    private int nextIndex;
    /** Upstream tool-call index → the Anthropic content block index it was given. */
    private final Map<Integer, Integer> toolBlocks = new HashMap<>();
    private String stopReason;
    private Usage usage;

    AnthropicStreamTranslator(JsonFactory factory, String fallbackId, String fallbackModel) {
        this.factory = factory;
        this.fallbackId = fallbackId;
        this.fallbackModel = fallbackModel;
    }

    /**
     * The events of the next chunk ({@code message_start} first, on the first call).
     *
     * @param chunk the chunk
     * @return the SSE bytes, possibly empty (e.g. for a role-only chunk after the start)
     */
    public byte[] next(StreamChunk chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        if (chunk.usage() != null) {
            usage = chunk.usage();
        }
        if (!started) {
            start(out, chunk);
        }
        if (chunk.kind() == FrameKind.HEARTBEAT) {
            out.writeBytes(PING);
            return out.toByteArray();
        }
        ChunkChoice choice = null;
        for (ChunkChoice c : chunk.choices()) {
            if (c.index() == 0) {
                choice = c;
                break;
            }
        }
        if (choice == null) {
            return out.toByteArray();
        }
        if (choice.reasoningDelta() != null && !choice.reasoningDelta().isEmpty()) {
            ensureOpen(out, Kind.THINKING, -1, null, null);
            delta(out, openIndex, "thinking_delta", "thinking", choice.reasoningDelta());
        }
        if (choice.contentDelta() != null && !choice.contentDelta().isEmpty()) {
            ensureOpen(out, Kind.TEXT, -1, null, null);
            delta(out, openIndex, "text_delta", "text", choice.contentDelta());
        }
        for (ToolCallDelta t : choice.toolCalls()) {
            Integer block = toolBlocks.get(t.index());
            if (block == null) {
                ensureOpen(out, Kind.TOOL, t.index(), t.id(), t.name());
                block = openIndex;
            }
            // pieces of a call whose block was already closed (interleaved parallel calls, which OpenAI
            // does not send) still go to that call's block index: the SDKs accumulate deltas by index
            if (t.argumentsDelta() != null && !t.argumentsDelta().isEmpty()) {
                delta(out, block, "input_json_delta", "partial_json", t.argumentsDelta());
            }
        }
        if (choice.finishReason() != null) {
            closeOpen(out);
            stopReason = WireNames.stopReason(choice.finishReason());
        }
        return out.toByteArray();
    }

    /**
     * The closing events: the open block's {@code content_block_stop}, {@code message_delta}
     * (stop reason, usage) and {@code message_stop}. Nothing after the first call.
     *
     * @return the SSE bytes
     */
    public byte[] end() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        if (ended) {
            return out.toByteArray();
        }
        ended = true;
        if (!started) {
            start(out, null);
        }
        closeOpen(out);
        event(out, Event.MESSAGE_DELTA, g -> {
            g.writeObjectFieldStart("delta");
            g.writeStringField("stop_reason", stopReason == null ? "end_turn" : stopReason);
            g.writeNullField("stop_sequence");
            g.writeEndObject();
            g.writeObjectFieldStart("usage");
            if (usage != null) {
                g.writeNumberField("input_tokens", usage.promptTokens());
            }
            g.writeNumberField("output_tokens", usage == null ? 0 : usage.completionTokens());
            g.writeEndObject();
        });
        event(out, Event.MESSAGE_STOP, g -> { });
        return out.toByteArray();
    }

    /**
     * An {@code error} event ({@code {"type":"error","error":{"type":"api_error","message"}}})
     * that ends the stream: nothing follows it.
     *
     * @param message what went wrong
     * @return the SSE bytes
     */
    public byte[] error(String message) {
        ended = true;
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        event(out, Event.ERROR, g -> {
            g.writeObjectFieldStart("error");
            g.writeStringField("type", "api_error");
            g.writeStringField("message", message);
            g.writeEndObject();
        });
        return out.toByteArray();
    }

    /**
     * An {@code error} event with the gateway's own error code (a watchdog ended the stream, SPEC
     * §15): {@code {"type":"error","error":{"type":"api_error","code","message"}}}; nothing follows.
     *
     * @param code the error code, e.g. {@code STREAM_STALL_TIMEOUT}
     * @param message what happened
     * @return the SSE bytes
     */
    public byte[] error(String code, String message) {
        ended = true;
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        event(out, Event.ERROR, g -> {
            g.writeObjectFieldStart("error");
            g.writeStringField("type", "api_error");
            g.writeStringField("code", code);
            g.writeStringField("message", message);
            g.writeEndObject();
        });
        return out.toByteArray();
    }

    private void start(ByteArrayOutputStream out, StreamChunk first) {
        started = true;
        String id = WireNames.messageId(first == null ? null : first.id(), fallbackId);
        String model = first == null || first.model().isEmpty() ? fallbackModel : first.model();
        event(out, Event.MESSAGE_START, g -> {
            g.writeObjectFieldStart("message");
            g.writeStringField("id", id);
            g.writeStringField("type", "message");
            g.writeStringField("role", "assistant");
            g.writeStringField("model", model);
            g.writeArrayFieldStart("content");
            g.writeEndArray();
            g.writeNullField("stop_reason");
            g.writeNullField("stop_sequence");
            g.writeObjectFieldStart("usage");
            g.writeNumberField("input_tokens", usage == null ? 0 : usage.promptTokens());
            g.writeNumberField("output_tokens", 0);
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    private void ensureOpen(ByteArrayOutputStream out, Kind kind, int toolIndex, String toolId, String toolName) {
        if (open == kind && (kind != Kind.TOOL || openToolIndex == toolIndex)) {
            return;
        }
        closeOpen(out);
        int index = nextIndex++;
        open = kind;
        openIndex = index;
        openToolIndex = toolIndex;
        if (kind == Kind.TOOL) {
            toolBlocks.put(toolIndex, index);
        }
        event(out, Event.CONTENT_BLOCK_START, g -> {
            g.writeNumberField("index", index);
            g.writeObjectFieldStart("content_block");
            switch (kind) {
                case TEXT -> {
                    g.writeStringField("type", "text");
                    g.writeStringField("text", "");
                }
                case THINKING -> {
                    g.writeStringField("type", "thinking");
                    g.writeStringField("thinking", "");
                    g.writeStringField("signature", "");
                }
                case TOOL -> {
                    g.writeStringField("type", "tool_use");
                    g.writeStringField("id", toolId == null || toolId.isEmpty() ? "toolu_sluice_" + index : toolId);
                    g.writeStringField("name", toolName == null ? "" : toolName);
                    g.writeObjectFieldStart("input");
                    g.writeEndObject();
                }
                case NONE -> throw new IllegalStateException("no block kind");
            }
            g.writeEndObject();
        });
    }

    private void closeOpen(ByteArrayOutputStream out) {
        if (open == Kind.NONE) {
            return;
        }
        int index = openIndex;
        open = Kind.NONE;
        openIndex = -1;
        openToolIndex = -1;
        event(out, Event.CONTENT_BLOCK_STOP, g -> g.writeNumberField("index", index));
    }

    private void delta(ByteArrayOutputStream out, int index, String type, String field, String value) {
        event(out, Event.CONTENT_BLOCK_DELTA, g -> {
            g.writeNumberField("index", index);
            g.writeObjectFieldStart("delta");
            g.writeStringField("type", type);
            g.writeStringField(field, value);
            g.writeEndObject();
        });
    }

    /** Writes {@code event: <type>\ndata: {"type":"<type>", ...}\n\n}. */
    private void event(ByteArrayOutputStream out, Event event, AnthropicJson.GenWork body) {
        out.writeBytes(event.head);
        try (JsonGenerator g = factory.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("type", event.type);
            body.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.writeBytes(EVENT_END);
    }

    private static final byte[] EVENT_END = "\n\n".getBytes(StandardCharsets.US_ASCII);
}
