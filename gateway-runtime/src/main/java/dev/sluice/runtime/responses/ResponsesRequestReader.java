package dev.sluice.runtime.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.runtime.openai.InvalidRequestException;
import dev.sluice.runtime.openai.JsonFields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code POST /v1/responses} body into the canonical model (SPEC API-7): {@code input} as
 * a string or items — messages ({@code system}/{@code developer}/{@code user}/{@code assistant},
 * text as a string or {@code input_text}/{@code output_text} parts, {@code input_image}),
 * {@code function_call} and {@code function_call_output} items; reasoning items are dropped (their
 * encrypted content belongs to OpenAI) — {@code instructions} as the leading system message,
 * {@code function} tools (with {@code strict}), {@code tool_choice}, {@code reasoning.effort},
 * {@code text.format}, {@code max_output_tokens}, {@code temperature}, {@code top_p},
 * {@code parallel_tool_calls}. Built-in tools a translated upstream cannot run ({@code web_search},
 * {@code file_search}, {@code namespace} …) are dropped and named. What cannot be translated (an
 * unknown item type, a bad field) does not fail the read: it is kept as the request's
 * {@linkplain ResponsesRequest#untranslatable() refusal}, a 400 naming the field only when no
 * connection that passes the body through is left (issue 32). A body that is not a JSON object, or
 * has no usable {@code model}, cannot be routed at all and is refused at once.
 */
public final class ResponsesRequestReader {

    /** Fields the answer repeats as the client sent them. */
    private static final List<String> ECHOED = List.of("instructions", "metadata", "temperature", "top_p", "tool_choice", "tools",
            "parallel_tool_calls", "max_output_tokens", "previous_response_id", "reasoning", "text", "store", "user");

    private final ObjectMapper mapper;

    /**
     * Creates the reader.
     *
     * @param mapper the JSON mapper
     */
    public ResponsesRequestReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Reads a request.
     *
     * @param body the request body
     * @return the request
     * @throws InvalidRequestException naming the bad field
     */
    public ResponsesRequest read(byte[] body) {
        ObjectNode root = JsonFields.parseObject(mapper, body);
        String model = JsonFields.modelName(root);
        try {
            return translated(root, model);
        } catch (InvalidRequestException untranslatable) {
            // issue 32: what the canonical model cannot carry (an item type it does not know yet, previous_response_id …)
            // is no reason to refuse a request an upstream serving the Responses API takes as it is. Routing needs the
            // model and the stream flag only: read leniently, and the refusal kept for connections that would translate.
            boolean stream = root.path("stream").isBoolean() && root.get("stream").booleanValue();
            ChatRequest chat = new ChatRequest(model, List.of(), List.of(), null, stream, null, null, null, null, Map.of());
            return new ResponsesRequest(chat, List.of(), root.path("background").asBoolean(false), Map.of(), Set.of(), untranslatable);
        }
    }

    /** The request in the canonical model, or the first thing that keeps it from being translated. */
    private ResponsesRequest translated(ObjectNode root, String model) {
        JsonNode previous = root.get("previous_response_id");
        if (previous != null && !previous.isNull()) {
            throw new InvalidRequestException("previous_response_id", "Sluice does not store responses, so 'previous_response_id' cannot"
                    + " be resolved: send the whole conversation in 'input' (the earlier items, including function_call and"
                    + " function_call_output items) and set 'store' to false.");
        }
        List<ChatMessage> messages = new ArrayList<>();
        JsonNode instructions = root.get("instructions");
        if (instructions != null && !instructions.isNull()) {
            if (!instructions.isTextual()) {
                throw new InvalidRequestException("instructions", "'instructions' must be a string.");
            }
            if (!instructions.asText().isEmpty()) {
                messages.add(ChatMessage.text(Role.SYSTEM, instructions.asText()));
            }
        }
        readInput(root.get("input"), messages);
        Map<String, String> extra = new LinkedHashMap<>();
        List<String> dropped = new ArrayList<>();
        Set<String> custom = new LinkedHashSet<>();
        List<ToolDefinition> tools = readTools(root.get("tools"), dropped, custom);
        String toolChoice = readToolChoice(root.get("tool_choice"));
        boolean stream = JsonFields.optionalBoolean(root, "stream");
        Integer maxTokens = JsonFields.optionalInt(root, "max_output_tokens", 1);
        Double temperature = JsonFields.optionalNumber(root, "temperature");
        Double topP = JsonFields.optionalNumber(root, "top_p");
        JsonNode parallel = root.get("parallel_tool_calls");
        if (parallel != null && !parallel.isNull()) {
            if (!parallel.isBoolean()) {
                throw new InvalidRequestException("parallel_tool_calls", "'parallel_tool_calls' must be a boolean.");
            }
            if (!tools.isEmpty()) {
                extra.put("parallel_tool_calls", parallel.toString());
            }
        }
        readReasoning(root.get("reasoning"), extra);
        readTextFormat(root.get("text"), extra);
        if (stream) {
            extra.put("stream_options", "{\"include_usage\":true}");
        }
        boolean background = root.path("background").asBoolean(false);
        Map<String, String> echo = new LinkedHashMap<>();
        for (String f : ECHOED) {
            JsonNode v = root.get(f);
            if (v != null) {
                echo.put(f, JsonFields.rawJson(f, v));
            }
        }
        ChatRequest chat = new ChatRequest(model, messages, tools, toolChoice, stream, maxTokens, temperature, topP, null, extra);
        return new ResponsesRequest(chat, dropped, background, echo, custom, null);
    }

    private void readInput(JsonNode input, List<ChatMessage> out) {
        if (input == null || input.isNull()) {
            throw new InvalidRequestException("input", "Missing required parameter: 'input'.");
        }
        if (input.isTextual()) {
            out.add(ChatMessage.text(Role.USER, input.asText()));
            return;
        }
        if (!input.isArray()) {
            throw new InvalidRequestException("input", "'input' must be a string or an array of input items.");
        }
        List<ChatMessage> images = new ArrayList<>();
        for (int i = 0; i < input.size(); i++) {
            JsonNode item = input.get(i);
            String type = item.path("type").asText("");
            if (!type.endsWith("_call_output") && !images.isEmpty()) {
                // images tools returned follow the whole run of tool results: an assistant turn's calls must be answered first
                out.addAll(images);
                images.clear();
            }
            readItem(item, "input[" + i + "]", out, images);
        }
        out.addAll(images);
    }

    private void readItem(JsonNode item, String path, List<ChatMessage> out, List<ChatMessage> images) {
        if (!item.isObject()) {
            throw new InvalidRequestException(path, "'" + path + "' must be an object.");
        }
        String type = item.path("type").asText(item.has("role") ? "message" : "");
        switch (type) {
            case "message" -> {
                ChatMessage m = readMessage(item, path);
                if (m != null) {
                    out.add(m);
                }
            }
            case "function_call", "custom_tool_call" -> {
                String callId = text(item, "call_id", path);
                // a custom tool's free-form input travels as the one string argument of its function
                String arguments = "custom_tool_call".equals(type)
                        ? mapper.createObjectNode().put("input", item.path("input").asText("")).toString()
                        : item.path("arguments").asText("{}");
                ToolCall call = new ToolCall(callId, text(item, "name", path), arguments);
                // consecutive calls of one turn become one assistant message, as chat completions has them
                ChatMessage last = out.isEmpty() ? null : out.getLast();
                if (last != null && last.role() == Role.ASSISTANT && !last.toolCalls().isEmpty()) {
                    List<ToolCall> calls = new ArrayList<>(last.toolCalls());
                    calls.add(call);
                    out.set(out.size() - 1, last.toBuilder().toolCalls(calls).build());
                } else if (last != null && last.role() == Role.ASSISTANT && last.toolCallId() == null) {
                    out.set(out.size() - 1, last.toBuilder().toolCalls(List.of(call)).build());
                } else {
                    out.add(new ChatMessage(Role.ASSISTANT, List.of(), null, List.of(call), null, null));
                }
            }
            case "function_call_output", "custom_tool_call_output" -> {
                JsonNode output = item.get("output");
                String callId = text(item, "call_id", path);
                String text = output == null || output.isNull() ? "" : output.isTextual() ? output.asText() : outputText(output);
                out.add(new ChatMessage(Role.TOOL, List.of(new ContentPart.Text(text)), null, List.of(), callId, null));
                List<ContentPart> returned = outputImages(output);
                if (!returned.isEmpty()) {
                    // chat completions' tool messages carry text only: the images a tool returned follow as a user turn
                    List<ContentPart> parts = new ArrayList<>();
                    parts.add(new ContentPart.Text("Image(s) returned by tool call " + callId + ":"));
                    parts.addAll(returned);
                    images.add(new ChatMessage(Role.USER, parts, null, List.of(), null, null));
                }
            }
            // reasoning items carry OpenAI's encrypted state, and a web search call is a record of a
            // built-in tool's work: no other upstream can use them
            case "reasoning", "item_reference", "web_search_call" -> { }
            default -> throw new InvalidRequestException(path + ".type", "'" + path + ".type' '" + type + "' is not supported: use message,"
                    + " function_call, function_call_output, custom_tool_call or custom_tool_call_output items.");
        }
    }

    private static List<ContentPart> outputImages(JsonNode output) {
        List<ContentPart> images = new ArrayList<>();
        if (output != null && output.isArray()) {
            for (JsonNode part : output) {
                if ("input_image".equals(part.path("type").asText()) && part.path("image_url").isTextual()) {
                    images.add(new ContentPart.Image(part.get("image_url").asText(), part.path("detail").asText(null)));
                }
            }
        }
        return images;
    }

    private static String outputText(JsonNode output) {
        if (output.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : output) {
                if (part.has("text")) {
                    sb.append(part.get("text").asText());
                }
            }
            return sb.toString();
        }
        return output.toString();
    }

    private ChatMessage readMessage(JsonNode item, String path) {
        String roleName = item.path("role").asText("");
        Role role = switch (roleName) {
            case "user" -> Role.USER;
            case "assistant" -> Role.ASSISTANT;
            // developer messages are system messages to every upstream that is not OpenAI's newest
            case "system", "developer" -> Role.SYSTEM;
            default -> throw new InvalidRequestException(path + ".role", "Invalid value for '" + path + ".role': '" + roleName
                    + "' (expected user, assistant, system or developer).");
        };
        JsonNode content = item.get("content");
        if (content == null || content.isNull()) {
            throw new InvalidRequestException(path + ".content", "Missing required parameter: '" + path + ".content'.");
        }
        if (content.isTextual()) {
            return ChatMessage.text(role, content.asText());
        }
        if (!content.isArray()) {
            throw new InvalidRequestException(path + ".content", "'" + path + ".content' must be a string or an array of content parts.");
        }
        List<ContentPart> parts = new ArrayList<>();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String at = path + ".content[" + i + "]";
            switch (part.path("type").asText("")) {
                case "input_text", "output_text", "text" -> parts.add(new ContentPart.Text(text(part, "text", at)));
                case "refusal" -> parts.add(new ContentPart.Text(part.path("refusal").asText("")));
                case "input_image" -> {
                    String url = part.path("image_url").asText(null);
                    if (url == null) {
                        throw new InvalidRequestException(at + ".image_url", "'" + at + ".image_url' is required (file_id is not supported).");
                    }
                    parts.add(new ContentPart.Image(url, part.path("detail").asText(null)));
                }
                default -> throw new InvalidRequestException(at + ".type", "'" + at + ".type' '" + part.path("type").asText("")
                        + "' is not supported: use input_text, output_text or input_image.");
            }
        }
        if (role == Role.SYSTEM) {
            // one string: some OpenAI-compatible servers refuse array content on system messages
            StringBuilder sb = new StringBuilder();
            for (ContentPart p : parts) {
                if (p instanceof ContentPart.Text t) {
                    sb.append(sb.isEmpty() ? "" : "\n\n").append(t.text());
                }
            }
            return sb.isEmpty() ? null : ChatMessage.text(Role.SYSTEM, sb.toString());
        }
        return new ChatMessage(role, parts, null, List.of(), null, null);
    }

    private static String text(JsonNode node, String field, String path) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual()) {
            throw new InvalidRequestException(path + "." + field, "'" + path + "." + field + "' must be a string.");
        }
        return v.asText();
    }

    private static List<ToolDefinition> readTools(JsonNode tools, List<String> dropped, Set<String> custom) {
        List<ToolDefinition> out = new ArrayList<>();
        if (tools == null || tools.isNull()) {
            return out;
        }
        if (!tools.isArray()) {
            throw new InvalidRequestException("tools", "'tools' must be an array.");
        }
        Set<String> droppedTypes = new LinkedHashSet<>();
        for (int i = 0; i < tools.size(); i++) {
            JsonNode t = tools.get(i);
            String type = t.path("type").asText("");
            if ("custom".equals(type) && t.path("name").isTextual()) {
                // a free-form tool (Codex's apply_patch) as a function of one string: its input, verbatim
                String name = t.get("name").asText();
                custom.add(name);
                String description = t.path("description").asText("");
                out.add(new ToolDefinition(name, (description.isEmpty() ? "" : description + "\n\n")
                        + "Pass the tool's whole free-form input, verbatim, as the string argument 'input'.",
                        "{\"type\":\"object\",\"properties\":{\"input\":{\"type\":\"string\",\"description\":\"the tool's input, verbatim\"}},"
                                + "\"required\":[\"input\"],\"additionalProperties\":false}", Map.of()));
                continue;
            }
            if (!"function".equals(type)) {
                // a built-in tool runs at OpenAI only: dropped, and named in a header, rather than failing the request
                // named in a response header: only tool-type-shaped names, never the client's raw text
                droppedTypes.add(type.matches("[a-z0-9_.-]{1,64}") ? type : "unknown");
                continue;
            }
            String path = "tools[" + i + "]";
            Map<String, String> extra = new LinkedHashMap<>();
            if (t.has("strict") && !t.get("strict").isNull()) {
                extra.put("strict", t.get("strict").toString());
            }
            JsonNode params = t.get("parameters");
            out.add(new ToolDefinition(text(t, "name", path), t.path("description").asText(null),
                    params == null || params.isNull() ? null : JsonFields.rawJson(path + ".parameters", params), extra));
        }
        dropped.addAll(droppedTypes);
        return out;
    }

    private static String readToolChoice(JsonNode choice) {
        if (choice == null || choice.isNull()) {
            return null;
        }
        if (choice.isTextual()) {
            return switch (choice.asText()) {
                case "auto", "none", "required" -> "\"" + choice.asText() + "\"";
                default -> throw new InvalidRequestException("tool_choice", "'tool_choice' must be auto, none, required or a function.");
            };
        }
        if (choice.isObject() && "function".equals(choice.path("type").asText()) && choice.path("name").isTextual()) {
            return "{\"type\":\"function\",\"function\":{\"name\":" + JsonFields.rawJson("tool_choice.name", choice.get("name")) + "}}";
        }
        if (choice.isObject()) {
            // a built-in tool choice (web_search …) names a tool that was dropped
            return "\"auto\"";
        }
        throw new InvalidRequestException("tool_choice", "'tool_choice' must be auto, none, required or {type: function, name}.");
    }

    private static void readReasoning(JsonNode reasoning, Map<String, String> extra) {
        if (reasoning == null || reasoning.isNull()) {
            return;
        }
        if (!reasoning.isObject()) {
            throw new InvalidRequestException("reasoning", "'reasoning' must be an object.");
        }
        JsonNode effort = reasoning.get("effort");
        if (effort != null && effort.isTextual()) {
            extra.put("reasoning_effort", JsonFields.rawJson("reasoning.effort", effort));
        }
    }

    private static void readTextFormat(JsonNode text, Map<String, String> extra) {
        if (text == null || text.isNull()) {
            return;
        }
        JsonNode format = text.get("format");
        if (format == null || format.isNull() || "text".equals(format.path("type").asText())) {
            return;
        }
        switch (format.path("type").asText("")) {
            case "json_object" -> extra.put("response_format", "{\"type\":\"json_object\"}");
            case "json_schema" -> {
                ObjectNode schema = jsonSchema(format);
                extra.put("response_format", "{\"type\":\"json_schema\",\"json_schema\":" + schema + "}");
            }
            default -> throw new InvalidRequestException("text.format.type", "'text.format.type' must be text, json_object or json_schema.");
        }
    }

    /** The chat completions {@code json_schema} object of a Responses {@code text.format}: name, schema, strict, description. */
    private static ObjectNode jsonSchema(JsonNode format) {
        ObjectNode out = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        for (String f : List.of("name", "schema", "strict", "description")) {
            if (format.has(f)) {
                out.set(f, format.get(f));
            }
        }
        return out;
    }
}
