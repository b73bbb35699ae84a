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
 *
 * <p>A message's path ({@code messages[3]}) is built only when an error names it: a long
 * conversation would otherwise build several strings per message that nobody reads.
 */
final class MessageReader {

    private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "name", "tool_calls", "tool_call_id",
            "reasoning_content");

    private MessageReader() {
    }

    /**
     * Reads {@code array[index]suffix}.
     *
     * @param node the message node
     * @param array the array's path ({@code messages})
     * @param index the message's index in it
     * @param suffix what follows the index in the path ({@code ""} or {@code .message})
     */
    static ChatMessage read(JsonNode node, String array, int index, String suffix) {
        if (node == null || !node.isObject()) {
            String path = path(array, index, suffix);
            throw new InvalidRequestException(path, "'" + path + "' must be an object with 'role' and 'content'.");
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || !roleNode.isTextual()) {
            String rolePath = path(array, index, suffix) + ".role";
            throw new InvalidRequestException(rolePath, "Missing required parameter: '" + rolePath + "'.");
        }
        Role role = parseRole(roleNode.asText(), array, index, suffix);
        List<ContentPart> content = readContent(node.get("content"), array, index, suffix);
        List<ToolCall> toolCalls = new ArrayList<>();
        JsonNode tc = node.get("tool_calls");
        if (tc != null && !tc.isNull()) {
            if (!tc.isArray()) {
                String path = path(array, index, suffix);
                throw new InvalidRequestException(path + ".tool_calls", "'" + path + ".tool_calls' must be an array.");
            }
            for (int i = 0; i < tc.size(); i++) {
                JsonNode call = tc.get(i);
                JsonNode fn = call.path("function");
                String name = textOrNull(fn.get("name"));
                if (name == null) {
                    String path = path(array, index, suffix);
                    throw new InvalidRequestException(path + ".tool_calls[" + i + "].function.name",
                            "Missing required parameter: '" + path + ".tool_calls[" + i + "].function.name'.");
                }
                JsonNode args = fn.get("arguments");
                toolCalls.add(new ToolCall(call.path("id").asText(""), name,
                        args == null || args.isNull() ? "" : args.isTextual() ? args.asText()
                                : JsonFields.rawJson(path(array, index, suffix) + ".tool_calls[" + i + "].function.arguments", args)));
            }
        }
        return new ChatMessage(role, content, textOrNull(node.get("name")), toolCalls, textOrNull(node.get("tool_call_id")),
                textOrNull(node.get("reasoning_content")), WireJson.extras((ObjectNode) node, MESSAGE_FIELDS, path(array, index, suffix) + "."));
    }

    private static List<ContentPart> readContent(JsonNode content, String array, int index, String suffix) {
        if (content == null || content.isNull()) {
            return List.of();
        }
        if (content.isTextual()) {
            return List.of(new ContentPart.Text(content.asText()));
        }
        if (!content.isArray()) {
            String path = path(array, index, suffix) + ".content";
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
                        String path = path(array, index, suffix) + ".content";
                        throw new InvalidRequestException(path + "[" + i + "].text", "Missing required parameter: '" + path + "[" + i + "].text'.");
                    }
                    parts.add(new ContentPart.Text(t.asText()));
                }
                case "image_url" -> {
                    JsonNode iu = p.get("image_url");
                    String url = iu == null ? null : iu.isTextual() ? iu.asText() : textOrNull(iu.get("url"));
                    if (url == null) {
                        String path = path(array, index, suffix) + ".content";
                        throw new InvalidRequestException(path + "[" + i + "].image_url.url",
                                "Missing required parameter: '" + path + "[" + i + "].image_url.url'.");
                    }
                    parts.add(new ContentPart.Image(url, iu.isObject() ? textOrNull(iu.get("detail")) : null));
                }
                case "" -> {
                    String path = path(array, index, suffix) + ".content";
                    throw new InvalidRequestException(path + "[" + i + "].type", "Missing required parameter: '" + path + "[" + i + "].type'.");
                }
                default -> parts.add(new ContentPart.Other(type, JsonFields.rawJson(path(array, index, suffix) + ".content[" + i + "]", p)));
            }
        }
        return parts;
    }

    private static Role parseRole(String role, String array, int index, String suffix) {
        try {
            return Role.fromWireName(role);
        } catch (IllegalArgumentException e) {
            String path = path(array, index, suffix) + ".role";
            throw new InvalidRequestException(path, "Invalid value for '" + path + "': '" + role
                    + "' (expected system, developer, user, assistant or tool).");
        }
    }

    private static String path(String array, int index, String suffix) {
        return array + "[" + index + "]" + suffix;
    }
}
