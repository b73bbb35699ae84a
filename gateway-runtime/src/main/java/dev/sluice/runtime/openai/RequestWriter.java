package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.writeExtras;

import com.fasterxml.jackson.core.JsonFactory;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.ToolDefinition;

/** Writes canonical requests for an OpenAI-compatible upstream: chat completions and embeddings. */
final class RequestWriter {

    private final JsonFactory factory;

    RequestWriter(JsonFactory factory) {
        this.factory = factory;
    }

    byte[] writeChatRequest(ChatRequest r) {
        return WireJson.write(factory, g -> {
            g.writeStartObject();
            g.writeStringField("model", r.model());
            g.writeArrayFieldStart("messages");
            for (ChatMessage m : r.messages()) {
                MessageWriter.write(g, m);
            }
            g.writeEndArray();
            if (!r.tools().isEmpty()) {
                g.writeArrayFieldStart("tools");
                for (ToolDefinition t : r.tools()) {
                    g.writeStartObject();
                    g.writeStringField("type", "function");
                    g.writeObjectFieldStart("function");
                    g.writeStringField("name", t.name());
                    if (t.description() != null) {
                        g.writeStringField("description", t.description());
                    }
                    if (t.parametersJson() != null) {
                        g.writeFieldName("parameters");
                        g.writeRawValue(t.parametersJson());
                    }
                    writeExtras(g, t.extra());
                    g.writeEndObject();
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (r.toolChoiceJson() != null) {
                g.writeFieldName("tool_choice");
                g.writeRawValue(r.toolChoiceJson());
            }
            if (r.stream()) {
                g.writeBooleanField("stream", true);
            }
            if (r.maxTokens() != null) {
                g.writeNumberField("max_tokens", r.maxTokens());
            }
            if (r.temperature() != null) {
                g.writeNumberField("temperature", r.temperature());
            }
            if (r.topP() != null) {
                g.writeNumberField("top_p", r.topP());
            }
            if (!r.stop().isEmpty()) {
                g.writeArrayFieldStart("stop");
                for (String s : r.stop()) {
                    g.writeString(s);
                }
                g.writeEndArray();
            }
            writeExtras(g, r.extra());
            g.writeEndObject();
        });
    }

    byte[] writeEmbeddingRequest(EmbeddingRequest r) {
        return WireJson.write(factory, g -> {
            g.writeStartObject();
            g.writeStringField("model", r.model());
            g.writeFieldName("input");
            g.writeRawValue(r.inputJson());
            writeExtras(g, r.extra());
            g.writeEndObject();
        });
    }
}
