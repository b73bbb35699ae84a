package dev.sluice.runtime.anthropic;

import static dev.sluice.runtime.anthropic.AnthropicFields.requiredText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.runtime.openai.InvalidRequestException;
import dev.sluice.runtime.openai.JsonFields;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and validates the top level of a Messages (or {@code count_tokens}) request: model,
 * limits, system prompt, tools, tool choice, sampling and metadata; the messages themselves are
 * read by {@link ContentBlockReader}. Which Anthropic-only fields travel on and which are dropped
 * is described on {@link AnthropicCodec}.
 */
final class MessagesRequestReader {

    private static final FieldPath MESSAGES = FieldPath.of("messages");
    private static final FieldPath SYSTEM = FieldPath.of("system");
    private static final FieldPath TOOLS = FieldPath.of("tools");
    private static final FieldPath TOOL_CHOICE = FieldPath.of("tool_choice");

    private final ObjectMapper mapper;

    MessagesRequestReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    ChatRequest read(byte[] body, boolean maxTokensRequired) {
        return read(JsonFields.parseObject(mapper, body), maxTokensRequired);
    }

    private ChatRequest read(ObjectNode root, boolean maxTokensRequired) {
        String model = JsonFields.modelName(root);
        Integer maxTokens = maxTokens(root, maxTokensRequired);
        JsonNode messagesNode = root.get("messages");
        if (messagesNode == null || messagesNode.isNull()) {
            throw new InvalidRequestException("messages", "Missing required parameter: 'messages'.");
        }
        if (!messagesNode.isArray() || messagesNode.isEmpty()) {
            throw new InvalidRequestException("messages", "'messages' must be a non-empty array of message objects.");
        }
        List<ChatMessage> messages = new ArrayList<>(messagesNode.size() + 1);
        String system = readSystem(root.get("system"));
        if (system != null) {
            messages.add(ChatMessage.text(Role.SYSTEM, system));
        }
        for (int i = 0; i < messagesNode.size(); i++) {
            ContentBlockReader.readMessage(messagesNode.get(i), MESSAGES.index(i), messages);
        }
        List<ToolDefinition> tools = readTools(root.get("tools"));
        Map<String, String> extra = new LinkedHashMap<>();
        String toolChoice = readToolChoice(root.get("tool_choice"), extra);
        boolean stream = JsonFields.optionalBoolean(root, "stream");
        Double temperature = JsonFields.optionalNumber(root, "temperature");
        Double topP = JsonFields.optionalNumber(root, "top_p");
        JsonFields.optionalInt(root, "top_k", 0); // validated, then dropped: OpenAI has no top_k
        List<String> stop = readStopSequences(root.get("stop_sequences"));
        readMetadata(root.get("metadata"), extra);
        JsonNode thinking = root.get("thinking");
        if (thinking != null && !thinking.isNull()) {
            if (!thinking.isObject()) {
                throw new InvalidRequestException("thinking", "'thinking' must be an object.");
            }
            String effort = reasoningEffort(thinking);
            if (effort != null) {
                extra.put("reasoning_effort", "\"" + effort + "\"");
            }
        }
        if (stream) {
            extra.put("stream_options", "{\"include_usage\":true}");
        }
        return new ChatRequest(model, messages, tools, toolChoice, stream, maxTokens, temperature, topP, stop, extra);
    }

    private static Integer maxTokens(ObjectNode root, boolean required) {
        JsonNode n = root.get("max_tokens");
        if (n == null || n.isNull()) {
            if (required) {
                throw new InvalidRequestException("max_tokens", "Missing required parameter: 'max_tokens'.");
            }
            return null;
        }
        return JsonFields.optionalInt(root, "max_tokens", 1);
    }

    private static String readSystem(JsonNode system) {
        if (system == null || system.isNull()) {
            return null;
        }
        return systemText(system, SYSTEM);
    }

    /**
     * A system prompt's text: a string, or an array of text blocks joined by blank lines.
     *
     * @param system the value (not null)
     * @param at where it is, for errors
     * @return the text, or null when empty
     */
    static String systemText(JsonNode system, FieldPath at) {
        if (system.isTextual()) {
            return system.asText().isEmpty() ? null : system.asText();
        }
        if (!system.isArray()) {
            throw new InvalidRequestException(at.toString(), "'" + at + "' must be a string or an array of text blocks.");
        }
        // one string, not several parts: some OpenAI-compatible servers refuse array content on system messages
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < system.size(); i++) {
            FieldPath path = at.index(i);
            JsonNode block = system.get(i);
            if (!block.isObject() || !"text".equals(block.path("type").asText())) {
                throw new InvalidRequestException(path + ".type", "'" + path + ".type' must be 'text'.");
            }
            String text = requiredText(block, "text", path);
            if (!sb.isEmpty()) {
                sb.append("\n\n");
            }
            sb.append(text);
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    private static List<ToolDefinition> readTools(JsonNode tools) {
        if (tools == null || tools.isNull()) {
            return List.of();
        }
        if (!tools.isArray()) {
            throw new InvalidRequestException("tools", "'tools' must be an array.");
        }
        List<ToolDefinition> out = new ArrayList<>(tools.size());
        for (int i = 0; i < tools.size(); i++) {
            FieldPath path = TOOLS.index(i);
            JsonNode tool = tools.get(i);
            if (!tool.isObject()) {
                throw new InvalidRequestException(path.toString(), "'" + path + "' must be an object.");
            }
            JsonNode type = tool.get("type");
            if (type != null && !type.isNull() && !"custom".equals(type.asText())) {
                throw new InvalidRequestException(path + ".type", "'" + path + ".type' '" + type.asText()
                        + "' is an Anthropic server tool; only client tools (name, description, input_schema) can be routed.");
            }
            String name = requiredText(tool, "name", path);
            JsonNode description = tool.get("description");
            if (description != null && !description.isNull() && !description.isTextual()) {
                throw new InvalidRequestException(path + ".description", "'" + path + ".description' must be a string.");
            }
            JsonNode schema = tool.get("input_schema");
            if (schema != null && !schema.isNull() && !schema.isObject()) {
                throw new InvalidRequestException(path + ".input_schema", "'" + path + ".input_schema' must be an object.");
            }
            out.add(new ToolDefinition(name, description == null || description.isNull() ? null : description.asText(),
                    schema == null || schema.isNull() ? null : JsonFields.rawJson(path + ".input_schema", schema)));
        }
        return out;
    }

    /** The OpenAI-style tool choice; {@code disable_parallel_tool_use} goes to {@code extra}. */
    private String readToolChoice(JsonNode choice, Map<String, String> extra) {
        if (choice == null || choice.isNull()) {
            return null;
        }
        if (!choice.isObject()) {
            throw new InvalidRequestException("tool_choice", "'tool_choice' must be an object with a 'type'.");
        }
        String type = requiredText(choice, "type", TOOL_CHOICE);
        String openAi = switch (type) {
            case "auto" -> "\"auto\"";
            case "any" -> "\"required\"";
            case "none" -> "\"none\"";
            case "tool" -> {
                ObjectNode fn = mapper.createObjectNode().put("type", "function");
                fn.putObject("function").put("name", requiredText(choice, "name", TOOL_CHOICE));
                yield fn.toString();
            }
            default -> throw new InvalidRequestException("tool_choice.type", "Invalid value for 'tool_choice.type': '" + type
                    + "' (expected auto, any, tool or none).");
        };
        JsonNode noParallel = choice.get("disable_parallel_tool_use");
        if (noParallel != null && !noParallel.isNull()) {
            if (!noParallel.isBoolean()) {
                throw new InvalidRequestException("tool_choice.disable_parallel_tool_use",
                        "'tool_choice.disable_parallel_tool_use' must be a boolean.");
            }
            if (noParallel.asBoolean() && !"none".equals(type)) {
                extra.put("parallel_tool_calls", "false");
            }
        }
        return openAi;
    }

    private static List<String> readStopSequences(JsonNode stop) {
        if (stop == null || stop.isNull()) {
            return List.of();
        }
        if (!stop.isArray()) {
            throw new InvalidRequestException("stop_sequences", "'stop_sequences' must be an array of strings.");
        }
        List<String> out = new ArrayList<>(stop.size());
        for (JsonNode s : stop) {
            if (!s.isTextual()) {
                throw new InvalidRequestException("stop_sequences", "'stop_sequences' must be an array of strings.");
            }
            out.add(s.asText());
        }
        return out;
    }

    /**
     * Anthropic's {@code thinking} as the OpenAI-style reasoning knob, never raw (a strict upstream
     * refuses a parameter of another protocol): {@code enabled} with a budget → {@code low}
     * (under 4 096 tokens), {@code medium} (under 16 384) or {@code high}; {@code adaptive} and
     * {@code disabled} leave the upstream's default.
     */
    static String reasoningEffort(JsonNode thinking) {
        if (!"enabled".equals(thinking.path("type").asText())) {
            return null;
        }
        long budget = thinking.path("budget_tokens").asLong(0);
        return budget > 0 && budget < 4_096 ? "low" : budget < 16_384 ? "medium" : "high";
    }

    private static void readMetadata(JsonNode metadata, Map<String, String> extra) {
        if (metadata == null || metadata.isNull()) {
            return;
        }
        if (!metadata.isObject()) {
            throw new InvalidRequestException("metadata", "'metadata' must be an object.");
        }
        JsonNode user = metadata.get("user_id");
        if (user != null && !user.isNull()) {
            if (!user.isTextual()) {
                throw new InvalidRequestException("metadata.user_id", "'metadata.user_id' must be a string.");
            }
            extra.put("user", JsonFields.rawJson("metadata.user_id", user));
        }
    }
}
