package dev.sluice.runtime.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.Usage;

/**
 * Writes a complete canonical answer as an Anthropic {@code message}: thinking, text and tool
 * calls as content blocks, the stop reason, usage.
 */
final class MessageWriter {

    private final ObjectMapper mapper;
    private final JsonFactory factory;

    MessageWriter(ObjectMapper mapper) {
        this.mapper = mapper;
        this.factory = mapper.getFactory();
    }

    /** The first choice (index 0) as a {@code message}; see {@link AnthropicCodec#writeMessage}. */
    byte[] write(ChatResponse r, String fallbackId, String fallbackModel) {
        Choice choice = r.choices().isEmpty() ? null : r.choices().get(0);
        for (Choice c : r.choices()) {
            if (c.index() == 0) {
                choice = c;
                break;
            }
        }
        ChatMessage m = choice == null ? null : choice.message();
        String finish = choice == null ? null : choice.finishReason();
        return AnthropicJson.write(factory, g -> {
            g.writeStartObject();
            g.writeStringField("id", WireNames.messageId(r.id(), fallbackId));
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
            g.writeStringField("stop_reason", WireNames.stopReason(finish));
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
}
