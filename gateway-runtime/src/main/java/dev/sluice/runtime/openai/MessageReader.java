package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.textOrNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads one OpenAI message object (a client's {@code messages[i]} or an upstream's {@code
 * choices[i].message}) strictly, naming the offending field.
 */
final class MessageReader {

    private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "name", "tool_calls", "tool_call_id",
            "reasoning_content");

    private MessageReader() {
    }

    static ChatMessage read(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new InvalidRequestException(path, "'" + path + "' must be an object with 'role' and 'content'.");
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || !roleNode.isTextual()) {
            throw new InvalidRequestException(path + ".role", "Missing required parameter: '" + path + ".role'.");
        }
        Role role = parseRole(roleNode.asText(), path + ".role");
        List<ContentPart> content = readContent(node.get("content"), path + ".content");
        List<ToolCall> toolCalls = new ArrayList<>();
        JsonNode tc = node.get("tool_calls");
        if (tc != null && !tc.isNull()) {
            if (!tc.isArray()) {
                throw new InvalidRequestException(path + ".tool_calls", "'" + path + ".tool_calls' must be an array.");
            }
            for (int i = 0; i < tc.size(); i++) {
                JsonNode call = tc.get(i);
                JsonNode fn = call.path("function");
                String name = textOrNull(fn.get("name"));
                if (name == null) {
                    throw new InvalidRequestException(path + ".tool_calls[" + i + "].function.name",
                            "Missing required parameter: '" + path + ".tool_calls[" + i + "].function.name'.");
                }
                JsonNode args = fn.get("arguments");
                toolCalls.add(new ToolCall(call.path("id").asText(""), name,
                        args == null || args.isNull() ? "" : args.isTextual() ? args.asText() : args.toString()));
            }
        }
        return new ChatMessage(role, content, textOrNull(node.get("name")), toolCalls, textOrNull(node.get("tool_call_id")),
                textOrNull(node.get("reasoning_content")), WireJson.extras((ObjectNode) node, MESSAGE_FIELDS));
    }

    private static List<ContentPart> readContent(JsonNode content, String path) {
        if (content == null || content.isNull()) {
            return List.of();
        }
        if (content.isTextual()) {
            return List.of(new ContentPart.Text(content.asText()));
        }
        if (!content.isArray()) {
            throw new InvalidRequestException(path, "'" + path + "' must be a string or an array of content parts.");
        }
        List<ContentPart> parts = new ArrayList<>(content.size());
        for (int i = 0; i < content.size(); i++) {
            JsonNode p = content.get(i);
            String type = p.path("type").asText("");
            switch (type) {
                case "text" -> {
                    JsonNode t = p.get("text");
                    if (t == null || !t.isTextual()) {
                        throw new InvalidRequestException(path + "[" + i + "].text", "Missing required parameter: '" + path + "[" + i + "].text'.");
                    }
                    parts.add(new ContentPart.Text(t.asText()));
                }
                case "image_url" -> {
                    JsonNode iu = p.get("image_url");
                    String url = iu == null ? null : iu.isTextual() ? iu.asText() : textOrNull(iu.get("url"));
                    if (url == null) {
                        throw new InvalidRequestException(path + "[" + i + "].image_url.url",
                                "Missing required parameter: '" + path + "[" + i + "].image_url.url'.");
                    }
                    parts.add(new ContentPart.Image(url, iu.isObject() ? textOrNull(iu.get("detail")) : null));
                }
                case "" -> throw new InvalidRequestException(path + "[" + i + "].type", "Missing required parameter: '" + path + "[" + i + "].type'.");
                default -> parts.add(new ContentPart.Other(type, p.toString()));
            }
        }
        return parts;
    }

    private static Role parseRole(String role, String path) {
        try {
            return Role.fromWireName(role);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(path, "Invalid value for '" + path + "': '" + role
                    + "' (expected system, developer, user, assistant or tool).");
        }
    }
}
