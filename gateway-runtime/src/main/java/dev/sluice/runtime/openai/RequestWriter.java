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
            if (r.stream()) {
                writeExtrasAskingForUsage(g, r.extra());
            } else {
                writeExtras(g, r.extra());
            }
            g.writeEndObject();
        });
    }

    /**
     * A stream reports its usage in a last chunk only when asked ({@code stream_options.include_usage}):
     * Sluice asks on the client's behalf (usage accounting counts the final event), and the client
     * API strips that chunk again from the stream of a client that did not ask.
     */
    private void writeExtrasAskingForUsage(com.fasterxml.jackson.core.JsonGenerator g, java.util.Map<String, String> extra)
            throws java.io.IOException {
        String options = extra.get(STREAM_OPTIONS);
        java.util.Map<String, String> others = extra;
        if (options != null) {
            others = new java.util.LinkedHashMap<>(extra);
            others.remove(STREAM_OPTIONS);
        }
        writeExtras(g, others);
        g.writeFieldName(STREAM_OPTIONS);
        g.writeRawValue(withIncludeUsage(options));
    }

    private static final String STREAM_OPTIONS = "stream_options";
    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = new com.fasterxml.jackson.databind.ObjectMapper();

    /** The client's {@code stream_options} with {@code include_usage} set, unless the client set it itself. */
    static String withIncludeUsage(String options) {
        if (options == null) {
            return "{\"include_usage\":true}";
        }
        try {
            com.fasterxml.jackson.databind.JsonNode n = MAPPER.readTree(options);
            if (n instanceof com.fasterxml.jackson.databind.node.ObjectNode o && !o.has("include_usage")) {
                o.put("include_usage", true);
                return o.toString();
            }
        } catch (java.io.IOException e) {
            // not ours to fix: relayed as the client sent it
        }
        return options;
    }

    /**
     * Whether a client asked for the usage chunk of a stream itself.
     *
     * @param extra the request's extra fields
     * @return true when {@code stream_options.include_usage} is true
     */
    static boolean clientAskedForUsage(java.util.Map<String, String> extra) {
        String options = extra.get(STREAM_OPTIONS);
        if (options == null) {
            return false;
        }
        try {
            return MAPPER.readTree(options).path("include_usage").asBoolean(false);
        } catch (java.io.IOException e) {
            return false;
        }
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
