package dev.sluice.plugin.codex;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a canonical chat request as the body Codex sends to the ChatGPT backend
 * ({@code ResponsesApiRequest} of {@code codex-rs/codex-api}): {@code model}, {@code instructions}
 * (the system messages), {@code input} items ({@code message}, {@code function_call},
 * {@code function_call_output}), {@code tools} as functions, {@code tool_choice},
 * {@code parallel_tool_calls}, {@code reasoning} when the client asked for an effort,
 * {@code store: false} and {@code stream: true} whatever the client asked (Codex sends both for
 * ChatGPT accounts; a non-streaming client gets the stream gathered). Sampling parameters Codex
 * never sends ({@code max_tokens}, {@code temperature}, {@code top_p}, {@code stop}) are left out
 * and named in {@link Translation#dropped()}.
 */
final class ResponsesRequestWriter {

    private ResponsesRequestWriter() {
    }

    /** The body and what the translation left out. */
    record Translation(byte[] bytes, List<String> dropped) {
        Translation {
            dropped = List.copyOf(dropped);
        }
    }

    static Translation write(ChatRequest request) {
        Map<String, Object> body = new LinkedHashMap<>();
        List<String> dropped = new ArrayList<>();
        body.put("model", request.model());
        StringBuilder instructions = new StringBuilder();
        List<Object> input = new ArrayList<>();
        for (ChatMessage m : request.messages()) {
            if (m.role() == Role.SYSTEM) {
                if (!instructions.isEmpty()) {
                    instructions.append("\n\n");
                }
                instructions.append(m.textContent());
                continue;
            }
            addItems(input, m);
        }
        body.put("instructions", instructions.toString());
        body.put("input", input);
        if (!request.tools().isEmpty()) {
            List<Object> tools = new ArrayList<>();
            for (ToolDefinition t : request.tools()) {
                Map<String, Object> tool = new LinkedHashMap<>();
                tool.put("type", "function");
                tool.put("name", t.name());
                if (t.description() != null) {
                    tool.put("description", t.description());
                }
                tool.put("parameters", t.parametersJson() == null ? Map.of("type", "object", "properties", Map.of())
                        : parse(t.parametersJson(), "tool '" + t.name() + "' parameters"));
                tool.put("strict", false);
                tools.add(tool);
            }
            body.put("tools", tools);
        }
        body.put("tool_choice", toolChoice(request.toolChoiceJson()));
        String parallel = request.extra().get("parallel_tool_calls");
        body.put("parallel_tool_calls", parallel == null || !"false".equals(parallel.strip()));
        String effort = request.extra().get("reasoning_effort");
        if (effort != null && Json.parse(effort) instanceof String e) {
            body.put("reasoning", Map.of("effort", e, "summary", "auto"));
            body.put("include", List.of("reasoning.encrypted_content"));
        }
        body.put("store", false);
        body.put("stream", true);
        if (request.maxTokens() != null) {
            dropped.add("max_tokens");
        }
        if (request.temperature() != null) {
            dropped.add("temperature");
        }
        if (request.topP() != null) {
            dropped.add("top_p");
        }
        if (!request.stop().isEmpty()) {
            dropped.add("stop");
        }
        return new Translation(Json.write(body).getBytes(StandardCharsets.UTF_8), dropped);
    }

    private static void addItems(List<Object> input, ChatMessage m) {
        switch (m.role()) {
            case TOOL -> {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("type", "function_call_output");
                out.put("call_id", m.toolCallId() == null ? "" : m.toolCallId());
                out.put("output", m.textContent());
                input.add(out);
            }
            case ASSISTANT -> {
                String text = m.textContent();
                if (!text.isEmpty()) {
                    input.add(message("assistant", List.of(Map.of("type", "output_text", "text", text))));
                }
                for (ToolCall call : m.toolCalls()) {
                    Map<String, Object> fc = new LinkedHashMap<>();
                    fc.put("type", "function_call");
                    fc.put("call_id", call.id());
                    fc.put("name", call.name());
                    fc.put("arguments", call.argumentsJson() == null ? "{}" : call.argumentsJson());
                    input.add(fc);
                }
            }
            default -> {
                List<Object> content = new ArrayList<>();
                for (ContentPart p : m.content()) {
                    switch (p) {
                        case ContentPart.Text t -> content.add(Map.of("type", "input_text", "text", t.text()));
                        case ContentPart.Image i -> {
                            Map<String, Object> image = new LinkedHashMap<>();
                            image.put("type", "input_image");
                            image.put("image_url", i.url());
                            if (i.detail() != null) {
                                image.put("detail", i.detail());
                            }
                            content.add(image);
                        }
                        case ContentPart.Other o -> throw new IllegalArgumentException(
                                "content part of type '" + o.type() + "' cannot be sent to the ChatGPT Codex backend");
                    }
                }
                input.add(message(m.role() == Role.DEVELOPER ? "developer" : "user", content));
            }
        }
    }

    private static Map<String, Object> message(String role, List<Object> content) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("type", "message");
        item.put("role", role);
        item.put("content", content);
        return item;
    }

    /** Chat's {@code {"type":"function","function":{"name":…}}} is the Responses API's {@code {"type":"function","name":…}}. */
    private static Object toolChoice(String json) {
        if (json == null) {
            return "auto";
        }
        Object choice = parse(json, "tool_choice");
        if (choice instanceof Map<?, ?> m && "function".equals(m.get("type")) && Json.string(Json.get(m, "function"), "name") != null) {
            return Map.of("type", "function", "name", Json.string(Json.get(m, "function"), "name"));
        }
        return choice;
    }

    private static Object parse(String json, String what) {
        try {
            return Json.parse(json);
        } catch (JsonException e) {
            throw new IllegalArgumentException(what + " is not valid JSON: " + e.getMessage());
        }
    }
}
