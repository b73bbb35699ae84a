package dev.sluice.runtime.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.api.chat.Usage;
import dev.sluice.runtime.openai.InvalidRequestException;
import dev.sluice.runtime.openai.JsonFields;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Anthropic Messages JSON ⇄ canonical model, for clients that speak Anthropic (SPEC API-3).
 *
 * <p>The canonical request's {@code extra} is written verbatim onto an OpenAI-compatible wire,
 * and strict upstreams refuse parameters they do not know, so only these top-level fields travel
 * there: {@code metadata.user_id} as {@code user}, {@code thinking} verbatim, {@code
 * tool_choice.disable_parallel_tool_use} as {@code parallel_tool_calls: false}, and for streams
 * {@code stream_options.include_usage} (so the final {@code message_delta} can report output
 * tokens). Every other Anthropic-only field ({@code top_k}, {@code service_tier}, {@code
 * container}, {@code mcp_servers}, block-level {@code cache_control}, thinking signatures,
 * {@code redacted_thinking} blocks, {@code tool_result.is_error}) is validated where cheap and
 * dropped. Thread-safe.
 */
public final class AnthropicCodec {

    private final ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final JsonFactory factory = mapper.getFactory();

    /**
     * The mapper the codec parses with.
     *
     * @return the mapper
     */
    public ObjectMapper mapper() {
        return mapper;
    }

    // ---------------------------------------------------------------- requests

    /**
     * Parses and validates a client's Messages request ({@code POST /v1/messages}).
     *
     * @param body the request body
     * @return the canonical request
     * @throws InvalidRequestException naming the field when the body is invalid
     */
    public ChatRequest readMessagesRequest(byte[] body) {
        return read(JsonFields.parseObject(mapper, body), true);
    }

    /**
     * Parses and validates a {@code count_tokens} request: like a Messages request, without
     * {@code max_tokens}.
     *
     * @param body the request body
     * @return the canonical request
     * @throws InvalidRequestException naming the field when the body is invalid
     */
    public ChatRequest readCountTokensRequest(byte[] body) {
        return read(JsonFields.parseObject(mapper, body), false);
    }

    private ChatRequest read(ObjectNode root, boolean maxTokensRequired) {
        String model = JsonFields.requiredString(root, "model");
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
            readMessage(messagesNode.get(i), "messages[" + i + "]", messages);
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
            extra.put("thinking", thinking.toString());
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
        if (system.isTextual()) {
            return system.asText().isEmpty() ? null : system.asText();
        }
        if (!system.isArray()) {
            throw new InvalidRequestException("system", "'system' must be a string or an array of text blocks.");
        }
        // one string, not several parts: some OpenAI-compatible servers refuse array content on system messages
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < system.size(); i++) {
            String path = "system[" + i + "]";
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

    /** Adds the canonical message(s) of one Anthropic message: tool results become separate TOOL messages. */
    private void readMessage(JsonNode node, String path, List<ChatMessage> out) {
        if (node == null || !node.isObject()) {
            throw new InvalidRequestException(path, "'" + path + "' must be an object with 'role' and 'content'.");
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || roleNode.isNull()) {
            throw new InvalidRequestException(path + ".role", "Missing required parameter: '" + path + ".role'.");
        }
        String role = roleNode.isTextual() ? roleNode.asText() : roleNode.toString();
        JsonNode content = node.get("content");
        String contentPath = path + ".content";
        if (content == null || content.isNull()) {
            throw new InvalidRequestException(contentPath, "Missing required parameter: '" + contentPath + "'.");
        }
        if (!content.isTextual() && !content.isArray()) {
            throw new InvalidRequestException(contentPath, "'" + contentPath + "' must be a string or an array of content blocks.");
        }
        switch (role) {
            case "user" -> readUser(content, contentPath, out);
            case "assistant" -> out.add(readAssistant(content, contentPath));
            default -> throw new InvalidRequestException(path + ".role", "Invalid value for '" + path + ".role': '" + role
                    + "' (expected user or assistant; the system prompt goes in the top-level 'system').");
        }
    }

    private void readUser(JsonNode content, String path, List<ChatMessage> out) {
        if (content.isTextual()) {
            out.add(ChatMessage.text(Role.USER, content.asText()));
            return;
        }
        List<ContentPart> parts = new ArrayList<>();
        boolean toolResults = false;
        for (int i = 0; i < content.size(); i++) {
            String blockPath = path + "[" + i + "]";
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

    private ChatMessage readToolResult(JsonNode block, String path) {
        String toolUseId = requiredText(block, "tool_use_id", path);
        JsonNode content = block.get("content");
        List<ContentPart> parts = new ArrayList<>();
        String contentPath = path + ".content";
        if (content == null || content.isNull()) {
            parts.add(new ContentPart.Text(""));
        } else if (content.isTextual()) {
            parts.add(new ContentPart.Text(content.asText()));
        } else if (content.isArray()) {
            for (int i = 0; i < content.size(); i++) {
                String blockPath = contentPath + "[" + i + "]";
                JsonNode b = content.get(i);
                String type = blockType(b, blockPath);
                switch (type) {
                    case "text" -> parts.add(new ContentPart.Text(requiredText(b, "text", blockPath)));
                    case "image" -> parts.add(readImage(b, blockPath));
                    default -> parts.add(new ContentPart.Other(type, b.toString()));
                }
            }
        } else {
            throw new InvalidRequestException(contentPath, "'" + contentPath + "' must be a string or an array of content blocks.");
        }
        JsonNode isError = block.get("is_error");
        if (isError != null && !isError.isNull() && !isError.isBoolean()) {
            throw new InvalidRequestException(path + ".is_error", "'" + path + ".is_error' must be a boolean.");
        }
        return new ChatMessage(Role.TOOL, parts, null, List.of(), toolUseId, null);
    }

    private ChatMessage readAssistant(JsonNode content, String path) {
        if (content.isTextual()) {
            return ChatMessage.text(Role.ASSISTANT, content.asText());
        }
        List<ContentPart> parts = new ArrayList<>();
        List<ToolCall> calls = new ArrayList<>();
        StringBuilder reasoning = null;
        for (int i = 0; i < content.size(); i++) {
            String blockPath = path + "[" + i + "]";
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

    private static ContentPart.Image readImage(JsonNode block, String path) {
        JsonNode source = block.get("source");
        String sourcePath = path + ".source";
        if (source == null || !source.isObject()) {
            throw new InvalidRequestException(sourcePath, "Missing required parameter: '" + sourcePath + "'.");
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

    private static List<ToolDefinition> readTools(JsonNode tools) {
        if (tools == null || tools.isNull()) {
            return List.of();
        }
        if (!tools.isArray()) {
            throw new InvalidRequestException("tools", "'tools' must be an array.");
        }
        List<ToolDefinition> out = new ArrayList<>(tools.size());
        for (int i = 0; i < tools.size(); i++) {
            String path = "tools[" + i + "]";
            JsonNode tool = tools.get(i);
            if (!tool.isObject()) {
                throw new InvalidRequestException(path, "'" + path + "' must be an object.");
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
                    schema == null || schema.isNull() ? null : schema.toString()));
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
        String type = requiredText(choice, "type", "tool_choice");
        String openAi = switch (type) {
            case "auto" -> "\"auto\"";
            case "any" -> "\"required\"";
            case "none" -> "\"none\"";
            case "tool" -> {
                ObjectNode fn = mapper.createObjectNode().put("type", "function");
                fn.putObject("function").put("name", requiredText(choice, "name", "tool_choice"));
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
            extra.put("user", user.toString());
        }
    }

    // ---------------------------------------------------------------- responses

    /**
     * Serialises a canonical answer as an Anthropic {@code message}: the first choice's thinking,
     * text and tool calls as content blocks, {@code stop_reason} from its finish reason, usage.
     *
     * @param r the answer
     * @param fallbackId the message id when the upstream gave none
     * @param fallbackModel the model when the upstream named none
     * @return JSON bytes
     */
    public byte[] writeMessage(ChatResponse r, String fallbackId, String fallbackModel) {
        Choice choice = r.choices().isEmpty() ? null : r.choices().get(0);
        for (Choice c : r.choices()) {
            if (c.index() == 0) {
                choice = c;
                break;
            }
        }
        ChatMessage m = choice == null ? null : choice.message();
        String finish = choice == null ? null : choice.finishReason();
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("id", messageId(r.id(), fallbackId));
            g.writeStringField("type", "message");
            g.writeStringField("role", "assistant");
            g.writeStringField("model", r.model().isEmpty() ? fallbackModel : r.model());
            g.writeArrayFieldStart("content");
            int blocks = 0;
            if (m != null && m.reasoningContent() != null && !m.reasoningContent().isEmpty()) {
                g.writeStartObject();
                g.writeStringField("type", "thinking");
                g.writeStringField("thinking", m.reasoningContent());
                g.writeStringField("signature", "");
                g.writeEndObject();
                blocks++;
            }
            String text = m == null ? "" : m.textContent();
            boolean calls = m != null && !m.toolCalls().isEmpty();
            // naive clients read content[0].text: an empty answer still gets one (empty) text block
            if (!text.isEmpty() || (blocks == 0 && !calls)) {
                g.writeStartObject();
                g.writeStringField("type", "text");
                g.writeStringField("text", text);
                g.writeEndObject();
            }
            if (calls) {
                for (ToolCall t : m.toolCalls()) {
                    g.writeStartObject();
                    g.writeStringField("type", "tool_use");
                    g.writeStringField("id", t.id());
                    g.writeStringField("name", t.name());
                    g.writeFieldName("input");
                    g.writeRawValue(toolInput(t.argumentsJson()));
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
            g.writeStringField("stop_reason", stopReason(finish));
            g.writeNullField("stop_sequence");
            g.writeObjectFieldStart("usage");
            Usage u = r.usage();
            g.writeNumberField("input_tokens", u == null ? 0 : u.promptTokens());
            g.writeNumberField("output_tokens", u == null ? 0 : u.completionTokens());
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    /**
     * A translator for one stream.
     *
     * @param fallbackId the message id when the upstream gave none
     * @param fallbackModel the model when the upstream named none
     * @return a new translator (one per stream: it is stateful)
     */
    public AnthropicStreamTranslator streamTranslator(String fallbackId, String fallbackModel) {
        return new AnthropicStreamTranslator(factory, fallbackId, fallbackModel);
    }

    /**
     * Anthropic's {@code stop_reason} for a canonical (OpenAI) finish reason.
     *
     * @param finishReason the finish reason, or null
     * @return the stop reason; {@code end_turn} for an unknown or absent one
     */
    public static String stopReason(String finishReason) {
        if (finishReason == null) {
            return "end_turn";
        }
        return switch (finishReason) {
            case "length" -> "max_tokens";
            case "tool_calls", "function_call" -> "tool_use";
            case "content_filter" -> "refusal";
            default -> "end_turn";
        };
    }

    /**
     * Anthropic's error {@code type} for an HTTP status.
     *
     * @param status the status
     * @return the type
     */
    public static String errorType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }

    /** Anthropic ids start with {@code msg_}; an upstream's own id is kept after the prefix, for tracing. */
    static String messageId(String upstreamId, String fallbackId) {
        if (upstreamId == null || upstreamId.isEmpty()) {
            return fallbackId;
        }
        return upstreamId.startsWith("msg_") ? upstreamId : "msg_" + upstreamId;
    }

    /**
     * A tool call's arguments as an Anthropic {@code input} object: the JSON object itself, {@code
     * {}} when empty, and anything that is not a JSON object wrapped as {@code {"_raw_arguments":
     * "<text>"}} so nothing the model produced is lost.
     */
    String toolInput(String argumentsJson) {
        if (argumentsJson == null || argumentsJson.isBlank()) {
            return "{}";
        }
        try {
            JsonNode n = mapper.readTree(argumentsJson);
            if (n != null && n.isObject()) {
                return n.toString();
            }
        } catch (JsonProcessingException e) {
            // not JSON: wrapped below
        }
        return mapper.createObjectNode().put("_raw_arguments", argumentsJson).toString();
    }

    // ---------------------------------------------------------------- helpers

    private static String blockType(JsonNode block, String path) {
        if (block == null || !block.isObject()) {
            throw new InvalidRequestException(path, "'" + path + "' must be a content block object with a 'type'.");
        }
        JsonNode type = block.get("type");
        if (type == null || !type.isTextual() || type.asText().isEmpty()) {
            throw new InvalidRequestException(path + ".type", "Missing required parameter: '" + path + ".type'.");
        }
        return type.asText();
    }

    private static String requiredText(JsonNode node, String field, String path) {
        String full = path + "." + field;
        JsonNode n = node.get(field);
        if (n == null || n.isNull()) {
            throw new InvalidRequestException(full, "Missing required parameter: '" + full + "'.");
        }
        if (!n.isTextual()) {
            throw new InvalidRequestException(full, "'" + full + "' must be a string.");
        }
        return n.asText();
    }

    @FunctionalInterface
    interface GenWork {
        void write(JsonGenerator g) throws IOException;
    }

    private byte[] write(GenWork work) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = factory.createGenerator(out)) {
            work.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
