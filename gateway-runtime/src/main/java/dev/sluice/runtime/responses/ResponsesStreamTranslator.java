package dev.sluice.runtime.responses;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Translates canonical stream chunks into the Responses API's stream events, one chunk at a time
 * (nothing waits for a later chunk): {@code response.created} and {@code response.in_progress} at
 * the start; reasoning as a {@code reasoning} item with summary text events; content as a
 * {@code message} item ({@code output_item.added}, {@code content_part.added},
 * {@code output_text.delta} …); each tool call as a {@code function_call} item with
 * {@code function_call_arguments.delta}/{@code .done}; at the end every open item is closed and
 * {@code response.completed} (or {@code response.incomplete} when the output limit cut it) carries
 * the whole response with usage. Every event has a {@code sequence_number}. Not thread-safe: one
 * stream's.
 */
public final class ResponsesStreamTranslator {

    private final ObjectMapper mapper;
    private final ResponseObjects objects;
    private final String id;
    private final long createdAt;
    private final Map<String, String> echo;
    private final java.util.Set<String> customTools;
    private String model;
    private long sequence;
    private boolean started;
    private final ArrayNode output;
    private int nextIndex;
    /** The open item: its kind, id, index, accumulated text/arguments. */
    private Open open;
    private int toolIndex = -1;
    private String finishReason;
    private Usage usage;

    private enum Kind { REASONING, MESSAGE, FUNCTION_CALL }

    private static final class Open {
        final Kind kind;
        final String itemId;
        final int index;
        final StringBuilder text = new StringBuilder();
        String callId;
        String name;
        boolean custom;

        Open(Kind kind, String itemId, int index) {
            this.kind = kind;
            this.itemId = itemId;
            this.index = index;
        }
    }

    /**
     * A translator for one stream.
     *
     * @param mapper the JSON mapper
     * @param id the response id ({@code resp_…})
     * @param model the model when chunks do not name one
     * @param createdAt epoch seconds
     * @param echo request fields the response snapshots repeat
     * @param customTools names of the request's custom tools: their calls stream as
     *     {@code custom_tool_call} items whose input is known at the item's end
     */
    public ResponsesStreamTranslator(ObjectMapper mapper, String id, String model, long createdAt, Map<String, String> echo,
            java.util.Set<String> customTools) {
        this.customTools = customTools;
        this.mapper = mapper;
        this.objects = new ResponseObjects(mapper);
        this.id = id;
        this.model = model;
        this.createdAt = createdAt;
        this.echo = echo;
        this.output = mapper.createArrayNode();
    }

    /**
     * The events of one chunk.
     *
     * @param chunk the chunk
     * @return the SSE bytes, possibly empty
     */
    public byte[] next(StreamChunk chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        if (!chunk.model().isEmpty()) {
            model = chunk.model();
        }
        start(out);
        if (chunk.usage() != null) {
            usage = chunk.usage();
        }
        if (chunk.kind() == FrameKind.HEARTBEAT) {
            // the Responses protocol has no ping event: an SSE comment keeps the connection alive
            out.writeBytes(": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII));
            return out.toByteArray();
        }
        for (ChunkChoice c : chunk.choices()) {
            if (c.index() != 0) {
                continue;
            }
            if (c.reasoningDelta() != null && !c.reasoningDelta().isEmpty()) {
                reasoning(out, c.reasoningDelta());
            }
            if (c.contentDelta() != null && !c.contentDelta().isEmpty()) {
                content(out, c.contentDelta());
            }
            for (ToolCallDelta t : c.toolCalls()) {
                toolCall(out, t);
            }
            if (c.finishReason() != null) {
                finishReason = c.finishReason();
            }
        }
        return out.toByteArray();
    }

    /** @return a keep-alive while the upstream is silent */
    public byte[] keepAlive() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        start(out);
        out.writeBytes(": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** @return the closing events: every open item done, then {@code response.completed} (or {@code .incomplete}) */
    public byte[] end() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        start(out);
        close(out);
        boolean cut = "length".equals(finishReason);
        ObjectNode response = snapshot(cut ? "incomplete" : "completed");
        if (cut) {
            response.set("incomplete_details", mapper.createObjectNode().put("reason", "max_output_tokens"));
        }
        response.set("usage", objects.usage(usage));
        event(out, cut ? "response.incomplete" : "response.completed", mapper.createObjectNode().set("response", response));
        return out.toByteArray();
    }

    /**
     * Ends the stream with an error: an {@code error} event (the SDKs raise on it) and
     * {@code response.failed}.
     *
     * @param code the error code
     * @param message what happened
     * @return the SSE bytes
     */
    public byte[] error(String code, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        start(out);
        event(out, "error", mapper.createObjectNode().put("code", code).put("message", message).putNull("param"));
        ObjectNode response = snapshot("failed");
        response.set("error", mapper.createObjectNode().put("code", code).put("message", message));
        event(out, "response.failed", mapper.createObjectNode().set("response", response));
        return out.toByteArray();
    }

    private void start(ByteArrayOutputStream out) {
        if (started) {
            return;
        }
        started = true;
        event(out, "response.created", mapper.createObjectNode().set("response", snapshot("in_progress")));
        event(out, "response.in_progress", mapper.createObjectNode().set("response", snapshot("in_progress")));
    }

    private ObjectNode snapshot(String status) {
        ObjectNode r = objects.response(id, model, createdAt, status, echo);
        r.set("output", output.deepCopy());
        return r;
    }

    private void reasoning(ByteArrayOutputStream out, String delta) {
        if (open == null || open.kind != Kind.REASONING) {
            close(out);
            open = new Open(Kind.REASONING, "rs_" + suffix(), nextIndex++);
            event(out, "response.output_item.added", item(open.index, objects.reasoningItem(open.itemId, null)));
            event(out, "response.reasoning_summary_part.added", at(open).put("summary_index", 0)
                    .set("part", mapper.createObjectNode().put("type", "summary_text").put("text", "")));
        }
        if (!delta.isEmpty()) {
            open.text.append(delta);
            event(out, "response.reasoning_summary_text.delta", at(open).put("summary_index", 0).put("delta", delta));
        }
    }

    private void content(ByteArrayOutputStream out, String delta) {
        if (open == null || open.kind != Kind.MESSAGE) {
            close(out);
            open = new Open(Kind.MESSAGE, "msg_" + suffix(), nextIndex++);
            event(out, "response.output_item.added", item(open.index, objects.messageItem(open.itemId, "in_progress", null)));
            event(out, "response.content_part.added", at(open).put("content_index", 0).set("part", objects.textPart("")));
        }
        open.text.append(delta);
        event(out, "response.output_text.delta", at(open).put("content_index", 0).put("delta", delta).set("logprobs",
                mapper.createArrayNode()));
    }

    private void toolCall(ByteArrayOutputStream out, ToolCallDelta t) {
        if (open == null || open.kind != Kind.FUNCTION_CALL || t.index() != toolIndex) {
            close(out);
            toolIndex = t.index();
            open = new Open(Kind.FUNCTION_CALL, "fc_" + suffix(), nextIndex++);
            open.callId = t.id() != null ? t.id() : "call_" + suffix();
            open.name = t.name() != null ? t.name() : "";
            open.custom = customTools.contains(open.name);
            event(out, "response.output_item.added", item(open.index, open.custom
                    ? objects.customToolCallItem(open.itemId, open.callId, open.name, "", "in_progress")
                    : objects.functionCallItem(open.itemId, open.callId, open.name, "", "in_progress")));
        } else if (t.name() != null && open.name.isEmpty()) {
            open.name = t.name();
        }
        if (t.argumentsDelta() != null && !t.argumentsDelta().isEmpty()) {
            open.text.append(t.argumentsDelta());
            if (!open.custom) {
                // a custom tool's input is inside its JSON arguments: it is told whole when the item ends
                event(out, "response.function_call_arguments.delta", at(open).put("delta", t.argumentsDelta()));
            }
        }
    }

    /** Closes the open item with its done events and adds it to the output. */
    private void close(ByteArrayOutputStream out) {
        if (open == null) {
            return;
        }
        Open o = open;
        open = null;
        ObjectNode done = switch (o.kind) {
            case REASONING -> {
                event(out, "response.reasoning_summary_text.done", at(o).put("summary_index", 0).put("text", o.text.toString()));
                event(out, "response.reasoning_summary_part.done", at(o).put("summary_index", 0)
                        .set("part", mapper.createObjectNode().put("type", "summary_text").put("text", o.text.toString())));
                yield objects.reasoningItem(o.itemId, o.text.isEmpty() ? null : o.text.toString());
            }
            case MESSAGE -> {
                event(out, "response.output_text.done", at(o).put("content_index", 0).put("text", o.text.toString())
                        .set("logprobs", mapper.createArrayNode()));
                event(out, "response.content_part.done", at(o).put("content_index", 0).set("part", objects.textPart(o.text.toString())));
                yield objects.messageItem(o.itemId, "completed", o.text.toString());
            }
            case FUNCTION_CALL -> {
                String args = o.text.isEmpty() ? "{}" : o.text.toString();
                if (o.custom) {
                    String input = objects.customInput(args);
                    event(out, "response.custom_tool_call_input.done", at(o).put("input", input));
                    yield objects.customToolCallItem(o.itemId, o.callId, o.name, input, "completed");
                }
                event(out, "response.function_call_arguments.done", at(o).put("arguments", args).put("name", o.name));
                yield objects.functionCallItem(o.itemId, o.callId, o.name, args, "completed");
            }
        };
        output.add(done);
        event(out, "response.output_item.done", item(o.index, done));
    }

    private ObjectNode item(int index, ObjectNode item) {
        ObjectNode e = mapper.createObjectNode().put("output_index", index);
        e.set("item", item);
        return e;
    }

    private ObjectNode at(Open o) {
        return mapper.createObjectNode().put("item_id", o.itemId).put("output_index", o.index);
    }

    private String suffix() {
        return id.substring(id.indexOf('_') + 1) + "_" + nextIndex;
    }

    private void event(ByteArrayOutputStream out, String type, ObjectNode data) {
        ObjectNode e = mapper.createObjectNode().put("type", type);
        e.setAll(data);
        e.put("sequence_number", sequence++);
        try {
            out.writeBytes(("event: " + type + "\ndata: ").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(mapper.writeValueAsBytes(e));
            out.writeBytes("\n\n".getBytes(StandardCharsets.US_ASCII));
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
