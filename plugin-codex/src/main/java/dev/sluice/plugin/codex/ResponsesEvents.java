package dev.sluice.plugin.codex;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import dev.sluice.toolkit.json.Json;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates the Responses API's stream events into canonical chunks, one event at a time
 * (nothing waits for a later event): {@code response.created} gives the role chunk,
 * {@code response.output_text.delta} content, {@code response.reasoning_summary_text.delta} and
 * {@code response.reasoning_text.delta} visible reasoning, a {@code function_call} item and its
 * {@code response.function_call_arguments.delta} a tool call, and {@code response.completed} (or
 * {@code response.incomplete}) the finish reason and usage. {@code response.failed} and
 * {@code error} end the stream with an {@link IOException} naming the upstream's error. Events this
 * translation has no use for (item and part bookkeeping, {@code .done} events that repeat the
 * deltas) give nothing. Not thread-safe: one stream's.
 */
final class ResponsesEvents {

    private final long created;
    private String id = "resp";
    private String model;
    private boolean started;
    private boolean finished;
    /** output_index of a function_call item → its tool-call index in the chat answer. */
    private final Map<Long, Integer> toolIndexes = new HashMap<>();

    ResponsesEvents(String requestedModel, long created) {
        this.model = requestedModel;
        this.created = created;
    }

    boolean finished() {
        return finished;
    }

    /**
     * The chunks one event gives.
     *
     * @param event the event's JSON object
     * @return the chunks, possibly none
     * @throws IOException when the event reports a failure, or arrives after the end
     */
    List<StreamChunk> feed(Map<String, Object> event) throws IOException {
        String type = Json.string(event, "type");
        if (type == null) {
            return List.of();
        }
        if (finished) {
            throw new IOException("upstream sent '" + type + "' after the response ended");
        }
        switch (type) {
            case "response.created", "response.in_progress" -> {
                readResponse(Json.object(event, "response"));
                return start();
            }
            case "response.output_text.delta" -> {
                return with(choice(null, Json.string(event, "delta"), List.of(), null, null));
            }
            case "response.reasoning_summary_text.delta", "response.reasoning_text.delta" -> {
                return with(choice(null, null, List.of(), null, Json.string(event, "delta")));
            }
            case "response.output_item.added" -> {
                Map<String, Object> item = Json.object(event, "item");
                if (!"function_call".equals(Json.string(item, "type"))) {
                    return List.of();
                }
                int index = toolIndexes.size();
                toolIndexes.put(outputIndex(event), index);
                String args = Json.string(item, "arguments");
                return with(choice(null, null, List.of(new ToolCallDelta(index, Json.string(item, "call_id"), Json.string(item, "name"),
                        args == null || args.isEmpty() ? null : args)), null, null));
            }
            case "response.output_item.done" -> {
                // a function call that came whole, without added/delta events before it
                Map<String, Object> item = Json.object(event, "item");
                if (!"function_call".equals(Json.string(item, "type")) || toolIndexes.containsKey(outputIndex(event))) {
                    return List.of();
                }
                int index = toolIndexes.size();
                toolIndexes.put(outputIndex(event), index);
                String args = Json.string(item, "arguments");
                return with(choice(null, null, List.of(new ToolCallDelta(index, Json.string(item, "call_id"), Json.string(item, "name"),
                        args == null || args.isEmpty() ? "{}" : args)), null, null));
            }
            case "response.function_call_arguments.delta" -> {
                Integer index = toolIndexes.get(outputIndex(event));
                String delta = Json.string(event, "delta");
                if (index == null || delta == null) {
                    return List.of();
                }
                return with(choice(null, null, List.of(new ToolCallDelta(index, null, null, delta)), null, null));
            }
            case "response.completed", "response.incomplete" -> {
                Map<String, Object> response = Json.object(event, "response");
                readResponse(response);
                finished = true;
                String reason = finishReason(type, response);
                List<StreamChunk> out = new java.util.ArrayList<>(start());
                out.add(new StreamChunk(id, model, created, List.of(choice(null, null, List.of(), reason, null)), usage(response), Map.of()));
                return out;
            }
            case "response.failed" -> {
                Map<String, Object> error = Json.object(Json.object(event, "response"), "error");
                throw new IOException("upstream response failed: " + describe(error));
            }
            case "error" -> throw new IOException("upstream stream error: " + describe(event));
            default -> {
                return List.of();
            }
        }
    }

    private void readResponse(Map<String, Object> response) {
        String rid = Json.string(response, "id");
        if (rid != null) {
            id = rid;
        }
        String m = Json.string(response, "model");
        if (m != null) {
            model = m;
        }
    }

    private List<StreamChunk> start() {
        if (started) {
            return List.of();
        }
        started = true;
        return List.of(new StreamChunk(id, model, created, List.of(new ChunkChoice(0, Role.ASSISTANT, null, List.of(), null, null)),
                null, Map.of()));
    }

    private List<StreamChunk> with(ChunkChoice choice) {
        List<StreamChunk> out = new java.util.ArrayList<>(start());
        out.add(new StreamChunk(id, model, created, List.of(choice), null, Map.of()));
        return out;
    }

    private static ChunkChoice choice(Role role, String content, List<ToolCallDelta> tools, String finish, String reasoning) {
        return new ChunkChoice(0, role, content, tools, finish, reasoning);
    }

    private String finishReason(String type, Map<String, Object> response) {
        if ("response.incomplete".equals(type) || "incomplete".equals(Json.string(response, "status"))) {
            String why = Json.string(Json.object(response, "incomplete_details"), "reason");
            return "content_filter".equals(why) ? "content_filter" : "length";
        }
        return toolIndexes.isEmpty() ? "stop" : "tool_calls";
    }

    private static Usage usage(Map<String, Object> response) {
        Map<String, Object> u = Json.object(response, "usage");
        if (u == null) {
            return null;
        }
        long in = orZero(Json.number(u, "input_tokens"));
        long out = orZero(Json.number(u, "output_tokens"));
        Long total = Json.number(u, "total_tokens");
        Map<String, String> extra = new HashMap<>();
        Long cached = Json.number(Json.object(u, "input_tokens_details"), "cached_tokens");
        if (cached != null) {
            extra.put("prompt_tokens_details", "{\"cached_tokens\":" + cached + "}");
        }
        Long reasoning = Json.number(Json.object(u, "output_tokens_details"), "reasoning_tokens");
        if (reasoning != null) {
            extra.put("completion_tokens_details", "{\"reasoning_tokens\":" + reasoning + "}");
        }
        return new Usage(in, out, total == null ? in + out : total, extra);
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    private static long outputIndex(Map<String, Object> event) {
        Long i = Json.number(event, "output_index");
        return i == null ? -1 : i;
    }

    private static String describe(Map<String, Object> error) {
        if (error == null) {
            return "no detail";
        }
        String code = Json.string(error, "code");
        String message = Json.string(error, "message");
        return (code == null ? "" : code + ": ") + (message == null ? "no message" : message);
    }
}
