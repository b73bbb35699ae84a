package dev.sluice.runtime.anthropic;

import static dev.sluice.runtime.anthropic.AnthropicFields.blockType;
import static dev.sluice.runtime.anthropic.AnthropicFields.requiredText;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.runtime.openai.InvalidRequestException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one Anthropic message and its content blocks into canonical messages: a user turn's
 * {@code tool_result} blocks become separate TOOL messages, an assistant turn's {@code thinking}
 * becomes reasoning content and its {@code tool_use} blocks tool calls.
 */
final class ContentBlockReader {

    private ContentBlockReader() {
    }

    /** Adds the canonical message(s) of one Anthropic message: tool results become separate TOOL messages. */
    static void readMessage(JsonNode node, FieldPath path, List<ChatMessage> out) {
        if (node == null || !node.isObject()) {
            throw new InvalidRequestException(path.toString(), "'" + path + "' must be an object with 'role' and 'content'.");
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || roleNode.isNull()) {
            throw new InvalidRequestException(path + ".role", "Missing required parameter: '" + path + ".role'.");
        }
        String role = roleNode.isTextual() ? roleNode.asText() : roleNode.toString();
        JsonNode content = node.get("content");
        FieldPath contentPath = path.field("content");
        if (content == null || content.isNull()) {
            throw new InvalidRequestException(contentPath.toString(), "Missing required parameter: '" + contentPath + "'.");
        }
        if (!content.isTextual() && !content.isArray()) {
            throw new InvalidRequestException(contentPath.toString(), "'" + contentPath + "' must be a string or an array of content blocks.");
        }
        switch (role) {
            case "user" -> readUser(content, contentPath, out);
            case "assistant" -> out.add(readAssistant(content, contentPath));
            // the Messages API takes system messages between the turns too (Claude Code sends one after
            // the first user turn); they stay where they are
            case "system" -> {
                String text = MessagesRequestReader.systemText(content, contentPath);
                if (text != null) {
                    out.add(ChatMessage.text(Role.SYSTEM, text));
                }
            }
            default -> throw new InvalidRequestException(path + ".role", "Invalid value for '" + path + ".role': '" + role
                    + "' (expected user, assistant or system).");
        }
    }

    private static void readUser(JsonNode content, FieldPath path, List<ChatMessage> out) {
        if (content.isTextual()) {
            out.add(ChatMessage.text(Role.USER, content.asText()));
            return;
        }
        List<ContentPart> parts = new ArrayList<>();
        boolean toolResults = false;
        for (int i = 0; i < content.size(); i++) {
            FieldPath blockPath = path.index(i);
            JsonNode block = content.get(i);
            String type = blockType(block, blockPath);
            switch (type) {
                case "text" -> parts.add(new ContentPart.Text(requiredText(block, "text", blockPath)));
                case "image" -> parts.add(readImage(block, blockPath));
                // OpenAI wants each tool result as its own message right after the assistant's calls,
                // so results come first and the rest of the user turn follows as one user message
                case "tool_result" -> {
                    out.add(readToolResult(block, blockPath));
                    toolResults = true;
                }
                case "tool_use", "thinking", "redacted_thinking" -> throw new InvalidRequestException(blockPath + ".type",
                        "'" + blockPath + ".type' '" + type + "' is only allowed in assistant messages.");
                default -> parts.add(new ContentPart.Other(type, block.toString()));
            }
        }
        if (!parts.isEmpty() || !toolResults) {
            out.add(new ChatMessage(Role.USER, parts, null, List.of(), null, null));
        }
    }

    private static ChatMessage readToolResult(JsonNode block, FieldPath path) {
        String toolUseId = requiredText(block, "tool_use_id", path);
        JsonNode content = block.get("content");
        List<ContentPart> parts = new ArrayList<>();
        FieldPath contentPath = path.field("content");
        if (content == null || content.isNull()) {
            parts.add(new ContentPart.Text(""));
        } else if (content.isTextual()) {
            parts.add(new ContentPart.Text(content.asText()));
        } else if (content.isArray()) {
            for (int i = 0; i < content.size(); i++) {
                FieldPath blockPath = contentPath.index(i);
                JsonNode b = content.get(i);
                String type = blockType(b, blockPath);
                switch (type) {
                    case "text" -> parts.add(new ContentPart.Text(requiredText(b, "text", blockPath)));
                    case "image" -> parts.add(readImage(b, blockPath));
                    default -> parts.add(new ContentPart.Other(type, b.toString()));
                }
            }
        } else {
            throw new InvalidRequestException(contentPath.toString(), "'" + contentPath + "' must be a string or an array of content blocks.");
        }
        JsonNode isError = block.get("is_error");
        if (isError != null && !isError.isNull() && !isError.isBoolean()) {
            throw new InvalidRequestException(path + ".is_error", "'" + path + ".is_error' must be a boolean.");
        }
        return new ChatMessage(Role.TOOL, parts, null, List.of(), toolUseId, null);
    }

    private static ChatMessage readAssistant(JsonNode content, FieldPath path) {
        if (content.isTextual()) {
            return ChatMessage.text(Role.ASSISTANT, content.asText());
        }
        List<ContentPart> parts = new ArrayList<>();
        List<ToolCall> calls = new ArrayList<>();
        StringBuilder reasoning = null;
        for (int i = 0; i < content.size(); i++) {
            FieldPath blockPath = path.index(i);
            JsonNode block = content.get(i);
            String type = blockType(block, blockPath);
            switch (type) {
                case "text" -> parts.add(new ContentPart.Text(requiredText(block, "text", blockPath)));
                case "tool_use" -> {
                    String id = requiredText(block, "id", blockPath);
                    String name = requiredText(block, "name", blockPath);
                    JsonNode input = block.get("input");
                    if (input != null && !input.isNull() && !input.isObject()) {
                        throw new InvalidRequestException(blockPath + ".input", "'" + blockPath + ".input' must be an object.");
                    }
                    calls.add(new ToolCall(id, name, input == null || input.isNull() ? "{}" : input.toString()));
                }
                case "thinking" -> {
                    String thinking = requiredText(block, "thinking", blockPath);
                    reasoning = reasoning == null ? new StringBuilder(thinking) : reasoning.append(thinking);
                }
                case "redacted_thinking" -> {
                    // encrypted for Anthropic only: meaningless to any other upstream
                }
                case "image", "tool_result" -> throw new InvalidRequestException(blockPath + ".type",
                        "'" + blockPath + ".type' '" + type + "' is only allowed in user messages.");
                default -> parts.add(new ContentPart.Other(type, block.toString()));
            }
        }
        return new ChatMessage(Role.ASSISTANT, parts, null, calls, null, reasoning == null ? null : reasoning.toString());
    }

    private static ContentPart.Image readImage(JsonNode block, FieldPath path) {
        JsonNode source = block.get("source");
        FieldPath sourcePath = path.field("source");
        if (source == null || !source.isObject()) {
            throw new InvalidRequestException(sourcePath.toString(), "Missing required parameter: '" + sourcePath + "'.");
        }
        String type = requiredText(source, "type", sourcePath);
        return switch (type) {
            case "base64" -> new ContentPart.Image("data:" + requiredText(source, "media_type", sourcePath) + ";base64,"
                    + requiredText(source, "data", sourcePath), null);
            case "url" -> new ContentPart.Image(requiredText(source, "url", sourcePath), null);
            default -> throw new InvalidRequestException(sourcePath + ".type", "Invalid value for '" + sourcePath
                    + ".type': '" + type + "' (expected base64 or url).");
        };
    }
}
