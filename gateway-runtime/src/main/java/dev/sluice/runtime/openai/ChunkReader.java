package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.ResponseReader.CHOICE_FIELDS;
import static dev.sluice.runtime.openai.ResponseReader.RESPONSE_FIELDS;
import static dev.sluice.runtime.openai.WireJson.extras;
import static dev.sluice.runtime.openai.WireJson.textOrNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one upstream SSE chunk ({@code chat.completion.chunk}) leniently: a stream must not abort
 * over a field it does not need.
 */
final class ChunkReader {

    private static final Set<String> DELTA_FIELDS = Set.of("role", "content", "tool_calls", "reasoning_content");

    private final ObjectMapper mapper;

    ChunkReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    StreamChunk read(String json) {
        ObjectNode root;
        try {
            JsonNode n = mapper.readTree(json);
            if (!(n instanceof ObjectNode o)) {
                throw new InvalidRequestException(null, "stream chunk is not a JSON object");
            }
            root = o;
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException(null, "stream chunk is not valid JSON");
        }
        List<ChunkChoice> choices = new ArrayList<>();
        JsonNode choicesNode = root.get("choices");
        if (choicesNode != null && choicesNode.isArray()) {
            for (int i = 0; i < choicesNode.size(); i++) {
                choices.add(readChoice(choicesNode.get(i), i));
            }
        }
        return new StreamChunk(root.path("id").asText(""), root.path("model").asText(""), root.path("created").asLong(0),
                choices, UsageJson.read(root.get("usage")), extras(root, RESPONSE_FIELDS));
    }

    private static ChunkChoice readChoice(JsonNode c, int i) {
        JsonNode delta = c.path("delta");
        String role = textOrNull(delta.get("role"));
        List<ToolCallDelta> tcs = new ArrayList<>();
        JsonNode tcNode = delta.get("tool_calls");
        if (tcNode != null && tcNode.isArray()) {
            for (JsonNode tc : tcNode) {
                JsonNode fn = tc.path("function");
                tcs.add(new ToolCallDelta(tc.path("index").asInt(0), textOrNull(tc.get("id")),
                        textOrNull(fn.get("name")), textOrNull(fn.get("arguments"))));
            }
        }
        return new ChunkChoice(c.path("index").asInt(i), role == null ? null : chunkRole(role),
                textOrNull(delta.get("content")), tcs, textOrNull(c.get("finish_reason")),
                textOrNull(delta.get("reasoning_content")),
                delta instanceof ObjectNode d ? extras(d, DELTA_FIELDS) : Map.of(),
                c instanceof ObjectNode co ? extras(co, CHOICE_FIELDS) : Map.of());
    }

    /** Upstream deltas are read leniently: an unknown role is the assistant's (the stream must not abort). */
    private static Role chunkRole(String role) {
        try {
            return Role.fromWireName(role);
        } catch (IllegalArgumentException e) {
            return Role.ASSISTANT;
        }
    }
}
