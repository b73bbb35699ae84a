package dev.sluice.runtime.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.ToolCall;
import java.io.IOException;
import java.util.List;

/**
 * Writes one canonical message as an OpenAI message object: the same shape goes upstream in a
 * request's {@code messages} and back to a client in an answer's {@code choices[i].message}.
 */
final class MessageWriter {

    private MessageWriter() {
    }

    static void write(JsonGenerator g, ChatMessage m) throws IOException {
        g.writeStartObject();
        g.writeStringField("role", m.role().wireName());
        List<ContentPart> parts = m.content();
        if (parts.isEmpty()) {
            if (m.toolCalls().isEmpty()) {
                g.writeStringField("content", "");
            } else {
                g.writeNullField("content");
            }
        } else if (parts.size() == 1 && parts.get(0) instanceof ContentPart.Text t) {
            g.writeStringField("content", t.text());
        } else {
            g.writeArrayFieldStart("content");
            for (ContentPart p : parts) {
                writePart(g, p);
            }
            g.writeEndArray();
        }
        if (m.name() != null) {
            g.writeStringField("name", m.name());
        }
        if (m.reasoningContent() != null) {
            g.writeStringField("reasoning_content", m.reasoningContent());
        }
        if (!m.toolCalls().isEmpty()) {
            g.writeArrayFieldStart("tool_calls");
            for (ToolCall t : m.toolCalls()) {
                g.writeStartObject();
                g.writeStringField("id", t.id());
                g.writeStringField("type", "function");
                g.writeObjectFieldStart("function");
                g.writeStringField("name", t.name());
                g.writeStringField("arguments", t.argumentsJson());
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        if (m.toolCallId() != null) {
            g.writeStringField("tool_call_id", m.toolCallId());
        }
        WireJson.writeExtras(g, m.extra());
        g.writeEndObject();
    }

    private static void writePart(JsonGenerator g, ContentPart p) throws IOException {
        switch (p) {
            case ContentPart.Text t -> {
                g.writeStartObject();
                g.writeStringField("type", "text");
                g.writeStringField("text", t.text());
                g.writeEndObject();
            }
            case ContentPart.Image img -> {
                g.writeStartObject();
                g.writeStringField("type", "image_url");
                g.writeObjectFieldStart("image_url");
                g.writeStringField("url", img.url());
                if (img.detail() != null) {
                    g.writeStringField("detail", img.detail());
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            case ContentPart.Other o -> g.writeRawValue(o.json());
        }
    }
}
