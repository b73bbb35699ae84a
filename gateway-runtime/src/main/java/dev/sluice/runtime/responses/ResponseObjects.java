package dev.sluice.runtime.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The {@code response} object of the Responses API and its output items, as the OpenAI SDKs parse
 * them: the answer to a non-streamed request, and the snapshots the stream events carry.
 */
final class ResponseObjects {

    private final ObjectMapper mapper;

    ResponseObjects(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * A {@code response} object without output.
     *
     * @param id the response id
     * @param model the model that answers
     * @param createdAt epoch seconds
     * @param status {@code in_progress}, {@code completed}, {@code incomplete} or {@code failed}
     * @param echo request fields the object repeats
     * @return the object
     */
    ObjectNode response(String id, String model, long createdAt, String status, Map<String, String> echo) {
        ObjectNode r = mapper.createObjectNode();
        r.put("id", id).put("object", "response").put("created_at", createdAt).put("status", status);
        r.putNull("error");
        r.putNull("incomplete_details");
        r.set("instructions", echoed(echo, "instructions"));
        r.set("max_output_tokens", echoed(echo, "max_output_tokens"));
        r.put("model", model);
        r.putArray("output");
        r.put("parallel_tool_calls", echo.containsKey("parallel_tool_calls") ? echoed(echo, "parallel_tool_calls").asBoolean(true) : true);
        r.putNull("previous_response_id");
        JsonNode reasoning = echoed(echo, "reasoning");
        r.set("reasoning", reasoning.isNull() ? mapper.createObjectNode().putNull("effort").putNull("summary") : reasoning);
        r.put("store", false);
        r.set("temperature", echoed(echo, "temperature"));
        JsonNode text = echoed(echo, "text");
        r.set("text", text.isNull() ? mapper.createObjectNode().set("format", mapper.createObjectNode().put("type", "text")) : text);
        JsonNode toolChoice = echoed(echo, "tool_choice");
        r.set("tool_choice", toolChoice.isNull() ? mapper.getNodeFactory().textNode("auto") : toolChoice);
        JsonNode tools = echoed(echo, "tools");
        r.set("tools", tools.isNull() ? mapper.createArrayNode() : tools);
        r.set("top_p", echoed(echo, "top_p"));
        r.put("truncation", "disabled");
        r.putNull("usage");
        r.set("user", echoed(echo, "user"));
        JsonNode metadata = echoed(echo, "metadata");
        r.set("metadata", metadata.isNull() ? mapper.createObjectNode() : metadata);
        return r;
    }

    private JsonNode echoed(Map<String, String> echo, String field) {
        String raw = echo.get(field);
        if (raw == null) {
            return mapper.getNodeFactory().nullNode();
        }
        try {
            return mapper.readTree(raw);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A message output item with its text. */
    ObjectNode messageItem(String id, String status, String text) {
        ObjectNode item = mapper.createObjectNode();
        item.put("type", "message").put("id", id).put("status", status).put("role", "assistant");
        ArrayNode content = item.putArray("content");
        if (text != null) {
            content.add(textPart(text));
        }
        return item;
    }

    /** An {@code output_text} content part. */
    ObjectNode textPart(String text) {
        ObjectNode part = mapper.createObjectNode().put("type", "output_text").put("text", text);
        part.putArray("annotations");
        part.putArray("logprobs");
        return part;
    }

    /** A function call output item. */
    ObjectNode functionCallItem(String id, String callId, String name, String arguments, String status) {
        return mapper.createObjectNode().put("type", "function_call").put("id", id).put("call_id", callId).put("name", name)
                .put("arguments", arguments).put("status", status);
    }

    /** A custom (free-form input) tool call output item. */
    ObjectNode customToolCallItem(String id, String callId, String name, String input, String status) {
        return mapper.createObjectNode().put("type", "custom_tool_call").put("id", id).put("call_id", callId).put("name", name)
                .put("input", input).put("status", status);
    }

    /** A custom tool's free-form input out of its function arguments ({@code {"input": "…"}}), or the arguments as they are. */
    String customInput(String arguments) {
        try {
            JsonNode args = mapper.readTree(arguments);
            if (args != null && args.path("input").isTextual()) {
                return args.get("input").asText();
            }
        } catch (IOException e) {
            // not JSON: the model wrote the input itself
        }
        return arguments;
    }

    /** A reasoning output item with one summary text (the upstream's visible reasoning), or none. */
    ObjectNode reasoningItem(String id, String summary) {
        ObjectNode item = mapper.createObjectNode().put("type", "reasoning").put("id", id);
        ArrayNode s = item.putArray("summary");
        if (summary != null) {
            s.addObject().put("type", "summary_text").put("text", summary);
        }
        return item;
    }

    /** The Responses usage object of a canonical usage. */
    ObjectNode usage(Usage u) {
        ObjectNode out = mapper.createObjectNode();
        long in = u == null ? 0 : u.promptTokens();
        long outTokens = u == null ? 0 : u.completionTokens();
        out.put("input_tokens", in);
        out.putObject("input_tokens_details").put("cached_tokens", 0);
        out.put("output_tokens", outTokens);
        out.putObject("output_tokens_details").put("reasoning_tokens", 0);
        out.put("total_tokens", u == null ? 0 : u.totalTokens() > 0 ? u.totalTokens() : in + outTokens);
        return out;
    }

    /**
     * The whole answer to a non-streamed request.
     *
     * @param r the canonical answer
     * @param id the response id
     * @param createdAt epoch seconds
     * @param echo request fields to repeat
     * @param customTools names of the request's custom tools
     * @return the {@code response} object
     */
    ObjectNode completed(ChatResponse r, String id, long createdAt, Map<String, String> echo, java.util.Set<String> customTools) {
        ObjectNode out = response(id, r.model(), createdAt, "completed", echo);
        ArrayNode output = (ArrayNode) out.get("output");
        Choice choice = r.choices().isEmpty() ? null : r.choices().getFirst();
        if (choice != null) {
            ChatMessage m = choice.message();
            if (m.reasoningContent() != null && !m.reasoningContent().isEmpty()) {
                output.add(reasoningItem("rs_" + id.substring(5), m.reasoningContent()));
            }
            StringBuilder text = new StringBuilder();
            for (ContentPart p : m.content()) {
                if (p instanceof ContentPart.Text t) {
                    text.append(t.text());
                }
            }
            if (!text.isEmpty() || m.toolCalls().isEmpty()) {
                output.add(messageItem("msg_" + id.substring(5), "completed", text.toString()));
            }
            int n = 0;
            for (ToolCall call : m.toolCalls()) {
                String itemId = (customTools.contains(call.name()) ? "ctc_" : "fc_") + id.substring(5) + "_" + n++;
                output.add(customTools.contains(call.name())
                        ? customToolCallItem(itemId, call.id(), call.name(), customInput(call.argumentsJson()), "completed")
                        : functionCallItem(itemId, call.id(), call.name(), call.argumentsJson(), "completed"));
            }
            if ("length".equals(choice.finishReason())) {
                out.put("status", "incomplete");
                out.set("incomplete_details", mapper.createObjectNode().put("reason", "max_output_tokens"));
            }
        }
        out.set("usage", usage(r.usage()));
        return out;
    }
}
