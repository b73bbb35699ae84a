package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.extras;
import static dev.sluice.runtime.openai.WireJson.textOrNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads and validates what an OpenAI client sends: chat completion and embeddings requests.
 * Parameters the canonical model does not name travel as raw JSON in {@code extra}, so OpenAI →
 * OpenAI loses nothing at the top level.
 */
final class RequestReader {

    private static final Set<String> REQUEST_FIELDS = Set.of("model", "messages", "tools", "tool_choice", "stream",
            "max_tokens", "temperature", "top_p", "stop");
    private static final Set<String> EMBEDDING_FIELDS = Set.of("model", "input");
    private static final Set<String> FUNCTION_FIELDS = Set.of("name", "description", "parameters");

    private final ObjectMapper mapper;

    RequestReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    ChatRequest readChatRequest(byte[] body) {
        ObjectNode root = JsonFields.parseObject(mapper, body);
        String model = JsonFields.modelName(root);
        JsonNode messagesNode = root.get("messages");
        if (messagesNode == null || messagesNode.isNull()) {
            throw new InvalidRequestException("messages", "Missing required parameter: 'messages'.");
        }
        if (!messagesNode.isArray() || messagesNode.isEmpty()) {
            throw new InvalidRequestException("messages", "'messages' must be a non-empty array of message objects.");
        }
        List<ChatMessage> messages = new ArrayList<>(messagesNode.size());
        for (int i = 0; i < messagesNode.size(); i++) {
            JsonNode name = messagesNode.get(i).get("name");
            if (name != null && !name.isNull() && !name.isTextual()) {
                // a participant name goes upstream as a string; forwarding {"a":1} as its JSON text would be a guess
                throw new InvalidRequestException("messages[" + i + "].name", "'messages[" + i + "].name' must be a string.");
            }
            messages.add(MessageReader.read(messagesNode.get(i), "messages", i, ""));
        }
        List<ToolDefinition> tools = readTools(root.get("tools"));
        JsonNode toolChoice = root.get("tool_choice");
        boolean stream = JsonFields.optionalBoolean(root, "stream");
        Integer maxTokens = JsonFields.optionalInt(root, "max_tokens", 0);
        Double temperature = JsonFields.optionalNumber(root, "temperature");
        Double topP = JsonFields.optionalNumber(root, "top_p");
        List<String> stop = readStop(root.get("stop"));
        return new ChatRequest(model, messages, tools, toolChoice == null || toolChoice.isNull() ? null : JsonFields.rawJson("tool_choice", toolChoice),
                stream, maxTokens, temperature, topP, stop, extras(root, REQUEST_FIELDS));
    }

    EmbeddingRequest readEmbeddingRequest(byte[] body) {
        ObjectNode root = JsonFields.parseObject(mapper, body);
        String model = JsonFields.modelName(root);
        JsonNode input = root.get("input");
        if (input == null || input.isNull()) {
            throw new InvalidRequestException("input", "Missing required parameter: 'input'.");
        }
        if (!input.isTextual() && !input.isArray()) {
            throw new InvalidRequestException("input", "'input' must be a string or an array.");
        }
        return new EmbeddingRequest(model, JsonFields.rawJson("input", input), extras(root, EMBEDDING_FIELDS));
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
            JsonNode fn = tools.get(i).path("function");
            String name = textOrNull(fn.get("name"));
            if (name == null) {
                throw new InvalidRequestException("tools[" + i + "].function.name", "Missing required parameter: 'tools[" + i + "].function.name'.");
            }
            JsonNode params = fn.get("parameters");
            out.add(new ToolDefinition(name, textOrNull(fn.get("description")),
                    params == null || params.isNull() ? null : JsonFields.rawJson("tools[" + i + "].function.parameters", params),
                    fn instanceof ObjectNode f ? extras(f, FUNCTION_FIELDS, "tools[" + i + "].function.") : Map.of()));
        }
        return out;
    }

    private static List<String> readStop(JsonNode stop) {
        if (stop == null || stop.isNull()) {
            return List.of();
        }
        if (stop.isTextual()) {
            return List.of(stop.asText());
        }
        if (stop.isArray()) {
            List<String> out = new ArrayList<>();
            for (JsonNode s : stop) {
                if (!s.isTextual()) {
                    throw new InvalidRequestException("stop", "'stop' must be a string or an array of strings.");
                }
                out.add(s.asText());
            }
            return out;
        }
        throw new InvalidRequestException("stop", "'stop' must be a string or an array of strings.");
    }

}
