package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.writeExtras;

import com.fasterxml.jackson.core.JsonFactory;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;

/** Writes a canonical answer as the OpenAI chat completion a client receives. */
final class ResponseWriter {

    private final JsonFactory factory;

    ResponseWriter(JsonFactory factory) {
        this.factory = factory;
    }

    byte[] write(ChatResponse r) {
        return WireJson.write(factory, g -> {
            g.writeStartObject();
            g.writeStringField("id", r.id());
            g.writeStringField("object", "chat.completion");
            g.writeNumberField("created", r.created());
            g.writeStringField("model", r.model());
            g.writeArrayFieldStart("choices");
            for (Choice c : r.choices()) {
                g.writeStartObject();
                g.writeNumberField("index", c.index());
                g.writeFieldName("message");
                MessageWriter.write(g, c.message());
                WireJson.writeNullableString(g, "finish_reason", c.finishReason());
                writeExtras(g, c.extra());
                g.writeEndObject();
            }
            g.writeEndArray();
            UsageJson.write(g, r.usage());
            writeExtras(g, r.extra());
            g.writeEndObject();
        });
    }
}
