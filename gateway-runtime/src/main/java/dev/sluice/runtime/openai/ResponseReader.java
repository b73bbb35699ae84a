package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.extras;
import static dev.sluice.runtime.openai.WireJson.textOrNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads an upstream's complete chat completion: strict about {@code choices}, lenient about the rest. */
final class ResponseReader {

    static final Set<String> RESPONSE_FIELDS = Set.of("id", "object", "created", "model", "choices", "usage");
    static final Set<String> CHOICE_FIELDS = Set.of("index", "message", "delta", "finish_reason");

    private final ObjectMapper mapper;

    ResponseReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    ChatResponse read(byte[] body) {
        ObjectNode root = JsonFields.parseObject(mapper, body);
        JsonNode choicesNode = root.get("choices");
        if (choicesNode == null || !choicesNode.isArray()) {
            throw new InvalidRequestException("choices", "upstream answer has no 'choices' array");
        }
        List<Choice> choices = new ArrayList<>();
        for (int i = 0; i < choicesNode.size(); i++) {
            JsonNode c = choicesNode.get(i);
            JsonNode msg = c.get("message");
            ChatMessage message = msg == null || !msg.isObject() ? ChatMessage.text(Role.ASSISTANT, "")
                    : MessageReader.read(msg, "choices", i, ".message");
            choices.add(new Choice(c.path("index").asInt(i), message, textOrNull(c.get("finish_reason")),
                    c.isObject() ? extras((ObjectNode) c, CHOICE_FIELDS) : Map.of()));
        }
        return new ChatResponse(root.path("id").asText(""), root.path("model").asText(""), root.path("created").asLong(0),
                choices, UsageJson.read(root.get("usage")), extras(root, RESPONSE_FIELDS));
    }
}
