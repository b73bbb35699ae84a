package dev.sluice.runtime.openai;

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
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.api.chat.Usage;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * OpenAI Chat Completions JSON ⇄ canonical model. Parameters the canonical model does not name
 * travel as raw JSON in {@code extra}, so OpenAI → OpenAI loses nothing at the top level.
 * Thread-safe.
 */
public final class OpenAiCodec {

    private static final Set<String> REQUEST_FIELDS = Set.of("model", "messages", "tools", "tool_choice", "stream",
            "max_tokens", "temperature", "top_p", "stop");
    private static final Set<String> RESPONSE_FIELDS = Set.of("id", "object", "created", "model", "choices", "usage");
    private static final Set<String> EMBEDDING_FIELDS = Set.of("model", "input");
    private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "name", "tool_calls", "tool_call_id",
            "reasoning_content");
    private static final Set<String> CHOICE_FIELDS = Set.of("index", "message", "delta", "finish_reason");
    private static final Set<String> DELTA_FIELDS = Set.of("role", "content", "tool_calls", "reasoning_content");
    private static final Set<String> USAGE_FIELDS = Set.of("prompt_tokens", "completion_tokens", "total_tokens");
    private static final Set<String> FUNCTION_FIELDS = Set.of("name", "description", "parameters");

    private final ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final JsonFactory factory = mapper.getFactory();

    /**
     * The shared mapper (for callers that parse other OpenAI-shaped JSON).
     *
     * @return the mapper
     */
    public ObjectMapper mapper() {
        return mapper;
    }

    // ---------------------------------------------------------------- requests

    /**
     * Parses and validates a client's chat request.
     *
     * @param body the request body
     * @return the canonical request
     * @throws InvalidRequestException naming the field when the body is invalid
     */
    public ChatRequest readChatRequest(byte[] body) {
        ObjectNode root = JsonFields.parseObject(mapper, body);
        String model = modelName(root);
        JsonNode messagesNode = root.get("messages");
        if (messagesNode == null || messagesNode.isNull()) {
            throw new InvalidRequestException("messages", "Missing required parameter: 'messages'.");
        }
        if (!messagesNode.isArray() || messagesNode.isEmpty()) {
            throw new InvalidRequestException("messages", "'messages' must be a non-empty array of message objects.");
        }
        List<ChatMessage> messages = new ArrayList<>(messagesNode.size());
        for (int i = 0; i < messagesNode.size(); i++) {
            messages.add(readMessage(messagesNode.get(i), "messages[" + i + "]"));
        }
        List<ToolDefinition> tools = readTools(root.get("tools"));
        JsonNode toolChoice = root.get("tool_choice");
        boolean stream = JsonFields.optionalBoolean(root, "stream");
        Integer maxTokens = JsonFields.optionalInt(root, "max_tokens", 0);
        Double temperature = JsonFields.optionalNumber(root, "temperature");
        Double topP = JsonFields.optionalNumber(root, "top_p");
        List<String> stop = readStop(root.get("stop"));
        return new ChatRequest(model, messages, tools, toolChoice == null || toolChoice.isNull() ? null : toolChoice.toString(),
                stream, maxTokens, temperature, topP, stop, extras(root, REQUEST_FIELDS));
    }

    /**
     * Serialises a canonical request for an OpenAI-compatible upstream.
     *
     * @param r the request
     * @return JSON bytes
     */
    public byte[] writeChatRequest(ChatRequest r) {
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("model", r.model());
            g.writeArrayFieldStart("messages");
            for (ChatMessage m : r.messages()) {
                writeMessage(g, m);
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

    /**
     * Parses and validates a client's embeddings request.
     *
     * @param body the request body
     * @return the request
     */
    public EmbeddingRequest readEmbeddingRequest(byte[] body) {
        ObjectNode root = JsonFields.parseObject(mapper, body);
        String model = modelName(root);
        JsonNode input = root.get("input");
        if (input == null || input.isNull()) {
            throw new InvalidRequestException("input", "Missing required parameter: 'input'.");
        }
        if (!input.isTextual() && !input.isArray()) {
            throw new InvalidRequestException("input", "'input' must be a string or an array.");
        }
        return new EmbeddingRequest(model, input.toString(), extras(root, EMBEDDING_FIELDS));
    }

    /**
     * Serialises an embeddings request.
     *
     * @param r the request
     * @return JSON bytes
     */
    public byte[] writeEmbeddingRequest(EmbeddingRequest r) {
        return write(g -> {
            g.writeStartObject();
            g.writeStringField("model", r.model());
            g.writeFieldName("input");
            g.writeRawValue(r.inputJson());
            writeExtras(g, r.extra());
            g.writeEndObject();
        });
    }

    // ---------------------------------------------------------------- responses

    /**
     * Parses an upstream chat completion.
     *
     * @param body the body
     * @return the canonical answer
     * @throws InvalidRequestException when the body is not a chat completion
     */
    public ChatResponse readChatResponse(byte[] body) {
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
                    : readMessage(msg, "choices[" + i + "].message");
            choices.add(new Choice(c.path("index").asInt(i), message, textOrNull(c.get("finish_reason")),
                    c.isObject() ? extras((ObjectNode) c, CHOICE_FIELDS) : Map.of()));
        }
        return new ChatResponse(root.path("id").asText(""), root.path("model").asText(""), root.path("created").asLong(0),
                choices, readUsage(root.get("usage")), extras(root, RESPONSE_FIELDS));
    }

    /**
     * Serialises a canonical answer as an OpenAI chat completion.
     *
     * @param r the answer
     * @return JSON bytes
     */
    public byte[] writeChatResponse(ChatResponse r) {
        return write(g -> {
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
                writeMessage(g, c.message());
                writeNullableString(g, "finish_reason", c.finishReason());
                writeExtras(g, c.extra());
                g.writeEndObject();
            }
            g.writeEndArray();
            writeUsage(g, r.usage());
            writeExtras(g, r.extra());
            g.writeEndObject();
        });
    }

    /**
     * Parses one SSE chunk payload.
     *
     * @param json the {@code data:} payload
     * @return the chunk
     */
    public StreamChunk readChunk(String json) {
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
                JsonNode c = choicesNode.get(i);
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
                choices.add(new ChunkChoice(c.path("index").asInt(i), role == null ? null : chunkRole(role),
                        textOrNull(delta.get("content")), tcs, textOrNull(c.get("finish_reason")),
                        textOrNull(delta.get("reasoning_content")),
                        delta instanceof ObjectNode d ? extras(d, DELTA_FIELDS) : Map.of(),
                        c instanceof ObjectNode co ? extras(co, CHOICE_FIELDS) : Map.of()));
            }
        }
        return new StreamChunk(root.path("id").asText(""), root.path("model").asText(""), root.path("created").asLong(0),
                choices, readUsage(root.get("usage")), extras(root, RESPONSE_FIELDS));
    }

    /**
     * Serialises a chunk as one SSE event ({@code data: {...}\n\n}).
     *
     * @param c the chunk
     * @return the event bytes
     */
    public byte[] writeChunkEvent(StreamChunk c) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        out.writeBytes(DATA_PREFIX);
        writeTo(out, g -> {
            g.writeStartObject();
            g.writeStringField("id", c.id());
            g.writeStringField("object", "chat.completion.chunk");
            g.writeNumberField("created", c.created());
            g.writeStringField("model", c.model());
            g.writeArrayFieldStart("choices");
            for (ChunkChoice ch : c.choices()) {
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
                    g.writeEndArray();
                }
                writeExtras(g, ch.deltaExtra());
                g.writeEndObject();
                writeNullableString(g, "finish_reason", ch.finishReason());
                writeExtras(g, ch.extra());
                g.writeEndObject();
            }
            g.writeEndArray();
            writeUsage(g, c.usage());
            writeExtras(g, c.extra());
            g.writeEndObject();
        });
        out.writeBytes(EVENT_END);
        return out.toByteArray();
    }

    /** The SSE terminator OpenAI clients expect. */
    public static final byte[] DONE_EVENT = "data: [DONE]\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] DATA_PREFIX = "data: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] EVENT_END = "\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Reads an upstream error body ({@code {"error":{"message","type","code"}}} and common variants).
     *
     * @param head status and headers
     * @param body body text
     * @return the error
     */
    public UpstreamError readError(ResponseHead head, String body) {
        String message = null;
        String type = null;
        String code = null;
        try {
            JsonNode root = mapper.readTree(body);
            if (root != null && root.isObject()) {
                JsonNode err = root.get("error");
                if (err != null && err.isObject()) {
                    message = textOrNull(err.get("message"));
                    type = textOrNull(err.get("type"));
                    code = err.hasNonNull("code") ? err.get("code").asText() : null;
                } else if (err != null && err.isTextual()) {
                    message = err.asText();
                } else {
                    message = textOrNull(root.get("message"));
                    code = root.hasNonNull("code") ? root.get("code").asText() : null;
                    type = textOrNull(root.get("type"));
                }
            }
        } catch (JsonProcessingException | RuntimeException ignored) {
            // not JSON: the raw text is the message
        }
        return new UpstreamError(head, body, code, type, message);
    }

    // ---------------------------------------------------------------- helpers

    private ChatMessage readMessage(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new InvalidRequestException(path, "'" + path + "' must be an object with 'role' and 'content'.");
        }
        JsonNode roleNode = node.get("role");
        if (roleNode == null || !roleNode.isTextual()) {
            throw new InvalidRequestException(path + ".role", "Missing required parameter: '" + path + ".role'.");
        }
        Role role = parseRole(roleNode.asText(), path + ".role");
        List<ContentPart> content = readContent(node.get("content"), path + ".content");
        List<ToolCall> toolCalls = new ArrayList<>();
        JsonNode tc = node.get("tool_calls");
        if (tc != null && !tc.isNull()) {
            if (!tc.isArray()) {
                throw new InvalidRequestException(path + ".tool_calls", "'" + path + ".tool_calls' must be an array.");
            }
            for (int i = 0; i < tc.size(); i++) {
                JsonNode call = tc.get(i);
                JsonNode fn = call.path("function");
                String name = textOrNull(fn.get("name"));
                if (name == null) {
                    throw new InvalidRequestException(path + ".tool_calls[" + i + "].function.name",
                            "Missing required parameter: '" + path + ".tool_calls[" + i + "].function.name'.");
                }
                JsonNode args = fn.get("arguments");
                toolCalls.add(new ToolCall(call.path("id").asText(""), name,
                        args == null || args.isNull() ? "" : args.isTextual() ? args.asText() : args.toString()));
            }
        }
        return new ChatMessage(role, content, textOrNull(node.get("name")), toolCalls, textOrNull(node.get("tool_call_id")),
                textOrNull(node.get("reasoning_content")), extras((ObjectNode) node, MESSAGE_FIELDS));
    }

    private List<ContentPart> readContent(JsonNode content, String path) {
        if (content == null || content.isNull()) {
            return List.of();
        }
        if (content.isTextual()) {
            return List.of(new ContentPart.Text(content.asText()));
        }
        if (!content.isArray()) {
            throw new InvalidRequestException(path, "'" + path + "' must be a string or an array of content parts.");
        }
        List<ContentPart> parts = new ArrayList<>(content.size());
        for (int i = 0; i < content.size(); i++) {
            JsonNode p = content.get(i);
            String type = p.path("type").asText("");
            switch (type) {
                case "text" -> {
                    JsonNode t = p.get("text");
                    if (t == null || !t.isTextual()) {
                        throw new InvalidRequestException(path + "[" + i + "].text", "Missing required parameter: '" + path + "[" + i + "].text'.");
                    }
                    parts.add(new ContentPart.Text(t.asText()));
                }
                case "image_url" -> {
                    JsonNode iu = p.get("image_url");
                    String url = iu == null ? null : iu.isTextual() ? iu.asText() : textOrNull(iu.get("url"));
                    if (url == null) {
                        throw new InvalidRequestException(path + "[" + i + "].image_url.url",
                                "Missing required parameter: '" + path + "[" + i + "].image_url.url'.");
                    }
                    parts.add(new ContentPart.Image(url, iu.isObject() ? textOrNull(iu.get("detail")) : null));
                }
                case "" -> throw new InvalidRequestException(path + "[" + i + "].type", "Missing required parameter: '" + path + "[" + i + "].type'.");
                default -> parts.add(new ContentPart.Other(type, p.toString()));
            }
        }
        return parts;
    }

    /** Upstream deltas are read leniently: an unknown role is the assistant's (the stream must not abort). */
    private static Role chunkRole(String role) {
        try {
            return Role.fromWireName(role);
        } catch (IllegalArgumentException e) {
            return Role.ASSISTANT;
        }
    }

    private static Role parseRole(String role, String path) {
        try {
            return Role.fromWireName(role);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(path, "Invalid value for '" + path + "': '" + role
                    + "' (expected system, developer, user, assistant or tool).");
        }
    }

    private List<ToolDefinition> readTools(JsonNode tools) {
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
                    params == null || params.isNull() ? null : params.toString(),
                    fn instanceof ObjectNode f ? extras(f, FUNCTION_FIELDS) : Map.of()));
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

    private static Usage readUsage(JsonNode u) {
        if (u == null || !u.isObject()) {
            return null;
        }
        long p = Math.max(0, u.path("prompt_tokens").asLong(0));
        long c = Math.max(0, u.path("completion_tokens").asLong(0));
        long t = Math.max(0, u.path("total_tokens").asLong(p + c));
        return new Usage(p, c, t, extras((ObjectNode) u, USAGE_FIELDS));
    }

    private void writeMessage(JsonGenerator g, ChatMessage m) throws IOException {
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
        writeExtras(g, m.extra());
        g.writeEndObject();
    }

    private static void writeUsage(JsonGenerator g, Usage u) throws IOException {
        if (u == null) {
            return;
        }
        g.writeObjectFieldStart("usage");
        g.writeNumberField("prompt_tokens", u.promptTokens());
        g.writeNumberField("completion_tokens", u.completionTokens());
        g.writeNumberField("total_tokens", u.totalTokens());
        writeExtras(g, u.extra());
        g.writeEndObject();
    }

    private static void writeNullableString(JsonGenerator g, String field, String value) throws IOException {
        if (value == null) {
            g.writeNullField(field);
        } else {
            g.writeStringField(field, value);
        }
    }

    private static void writeExtras(JsonGenerator g, Map<String, String> extra) throws IOException {
        for (Map.Entry<String, String> e : extra.entrySet()) {
            g.writeFieldName(e.getKey());
            g.writeRawValue(e.getValue());
        }
    }

    private static Map<String, String> extras(ObjectNode root, Set<String> known) {
        Map<String, String> extra = null;
        Iterator<Map.Entry<String, JsonNode>> it = root.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!known.contains(e.getKey())) {
                if (extra == null) {
                    extra = new LinkedHashMap<>();
                }
                extra.put(e.getKey(), e.getValue().toString());
            }
        }
        return extra == null ? Map.of() : extra;
    }

    /** Longest accepted model string. */
    static final int MAX_MODEL_LENGTH = 256;

    /** The model string: non-empty, at most 256 characters, no control characters (it names routes and headers). */
    private static String modelName(ObjectNode root) {
        String model = JsonFields.requiredString(root, "model");
        if (model.length() > MAX_MODEL_LENGTH) {
            throw new InvalidRequestException("model", "'model' is longer than " + MAX_MODEL_LENGTH + " characters.");
        }
        for (int i = 0; i < model.length(); i++) {
            char ch = model.charAt(i);
            if (ch < 0x20 || ch == 0x7f) {
                throw new InvalidRequestException("model", "'model' contains a control character.");
            }
        }
        return model;
    }

    private static String textOrNull(JsonNode n) {
        return n == null || n.isNull() ? null : n.isTextual() ? n.asText() : n.toString();
    }

    @FunctionalInterface
    private interface GenWork {
        void write(JsonGenerator g) throws IOException;
    }

    private byte[] write(GenWork work) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        writeTo(out, work);
        return out.toByteArray();
    }

    private void writeTo(ByteArrayOutputStream out, GenWork work) {
        try (JsonGenerator g = factory.createGenerator(out)) {
            work.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
