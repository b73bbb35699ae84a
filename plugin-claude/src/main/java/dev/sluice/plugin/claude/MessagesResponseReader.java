package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Translates a complete Anthropic Messages answer into the canonical answer: text blocks
 * concatenated into the content, {@code tool_use} blocks into tool calls (arguments = the
 * {@code input} object as JSON text), {@code thinking} blocks into {@code reasoning_content},
 * {@code stop_reason} into {@code finish_reason}, usage with cache counts. Block types without a
 * canonical form (server tool results, citations) are left out. Thread-safe.
 */
final class MessagesResponseReader {

    /**
     * Message field (raw JSON array) that carries signed {@code thinking} and
     * {@code redacted_thinking} blocks, as LiteLLM names it, so a client that sends the assistant
     * message back gets them to Anthropic again (needed when thinking and tool use combine).
     */
    static final String THINKING_BLOCKS = "thinking_blocks";

    private final InstantSource clock;

    MessagesResponseReader(InstantSource clock) {
        this.clock = clock;
    }

    /**
     * Reads an answer.
     *
     * @param body the 2xx body
     * @return the canonical answer
     * @throws MalformedAnswerException when the body is not a Messages answer
     */
    ChatResponse read(String body) throws MalformedAnswerException {
        Map<String, Object> root;
        try {
            root = Json.parseObject(body);
        } catch (JsonException e) {
            throw new MalformedAnswerException("the body is not a JSON object (" + e.getMessage() + ")");
        }
        String type = Json.string(root, "type");
        if ("error".equals(type)) {
            Map<String, Object> err = Json.object(root, "error");
            throw new MalformedAnswerException("the body is an error: " + Json.string(err, "type") + ": " + Json.string(err, "message"));
        }
        List<?> content = Json.get(root, "content") instanceof List<?> l ? l : null;
        if ((type != null && !type.equals("message")) || content == null) {
            throw new MalformedAnswerException("the body is not a Messages answer (no type \"message\" with a content array)");
        }

        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = null;
        List<ToolCall> toolCalls = new ArrayList<>();
        List<Object> thinkingBlocks = new ArrayList<>();
        for (Object block : content) {
            String blockType = Json.string(block, "type");
            if (blockType == null) {
                continue;
            }
            switch (blockType) {
                case "text" -> {
                    String t = Json.string(block, "text");
                    if (t != null) {
                        text.append(t);
                    }
                }
                case "tool_use" -> {
                    String id = Json.string(block, "id");
                    String name = Json.string(block, "name");
                    if (id == null || name == null) {
                        throw new MalformedAnswerException("a tool_use block has no id or name");
                    }
                    Object input = Json.get(block, "input");
                    toolCalls.add(new ToolCall(id, name, Json.write(input == null ? Map.of() : input)));
                }
                case "thinking" -> {
                    String t = Json.string(block, "thinking");
                    if (t != null) {
                        reasoning = reasoning == null ? new StringBuilder(t) : reasoning.append(t);
                    }
                    thinkingBlocks.add(block);
                }
                case "redacted_thinking" -> thinkingBlocks.add(block);
                default -> {
                    // server_tool_use, web_search_tool_result, …: no canonical form
                }
            }
        }
        Map<String, String> messageExtra = thinkingBlocks.isEmpty() ? Map.of() : Map.of(THINKING_BLOCKS, Json.write(thinkingBlocks));
        List<ContentPart> parts = text.isEmpty() ? List.of() : List.of(new ContentPart.Text(text.toString()));
        ChatMessage message = new ChatMessage(Role.ASSISTANT, parts, null, toolCalls, null,
                reasoning == null ? null : reasoning.toString(), messageExtra);
        Choice choice = new Choice(0, message, FieldMapping.finishReason(Json.string(root, "stop_reason")));
        Map<String, Object> usage = Json.object(root, "usage");
        String id = Json.string(root, "id");
        String model = Json.string(root, "model");
        return new ChatResponse(id == null ? "" : id, model == null ? "" : model, clock.instant().getEpochSecond(),
                List.of(choice), usage == null ? null : FieldMapping.usage(usage), Map.of());
    }
}
