package dev.sluice.runtime.openai;

import static dev.sluice.runtime.openai.WireJson.writeExtras;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writes canonical chunks as the OpenAI SSE events a streaming client receives. */
final class ChunkWriter {

    /** The SSE terminator OpenAI clients expect. */
    static final byte[] DONE_EVENT = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA_PREFIX = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT_END = "\n\n".getBytes(StandardCharsets.US_ASCII);

    private final JsonFactory factory;

    ChunkWriter(JsonFactory factory) {
        this.factory = factory;
    }

    /** One {@code data: {...}\n\n} event. */
    byte[] writeEvent(StreamChunk c) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        out.writeBytes(DATA_PREFIX);
        WireJson.writeTo(factory, out, g -> {
            g.writeStartObject();
            g.writeStringField("id", c.id());
            g.writeStringField("object", "chat.completion.chunk");
            g.writeNumberField("created", c.created());
            g.writeStringField("model", c.model());
            g.writeArrayFieldStart("choices");
            for (ChunkChoice ch : c.choices()) {
                writeChoice(g, ch);
            }
            g.writeEndArray();
            UsageJson.write(g, c.usage());
            writeExtras(g, c.extra());
            g.writeEndObject();
        });
        out.writeBytes(EVENT_END);
        return out.toByteArray();
    }

    private static void writeChoice(JsonGenerator g, ChunkChoice ch) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", ch.index());
        g.writeObjectFieldStart("delta");
        if (ch.role() != null) {
            g.writeStringField("role", ch.role().wireName());
        }
        if (ch.contentDelta() != null) {
            g.writeStringField("content", ch.contentDelta());
        }
        if (ch.reasoningDelta() != null) {
            g.writeStringField("reasoning_content", ch.reasoningDelta());
        }
        if (!ch.toolCalls().isEmpty()) {
            g.writeArrayFieldStart("tool_calls");
            for (ToolCallDelta t : ch.toolCalls()) {
                writeToolCall(g, t);
            }
            g.writeEndArray();
        }
        writeExtras(g, ch.deltaExtra());
        g.writeEndObject();
        WireJson.writeNullableString(g, "finish_reason", ch.finishReason());
        writeExtras(g, ch.extra());
        g.writeEndObject();
    }

    private static void writeToolCall(JsonGenerator g, ToolCallDelta t) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", t.index());
        if (t.id() != null) {
            g.writeStringField("id", t.id());
            g.writeStringField("type", "function");
        }
        g.writeObjectFieldStart("function");
        if (t.name() != null) {
            g.writeStringField("name", t.name());
        }
        if (t.argumentsDelta() != null) {
            g.writeStringField("arguments", t.argumentsDelta());
        }
        g.writeEndObject();
        g.writeEndObject();
    }
}
