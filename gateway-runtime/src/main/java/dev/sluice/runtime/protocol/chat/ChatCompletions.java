package dev.sluice.runtime.protocol.chat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.protocol.ClientProtocol;
import dev.sluice.runtime.protocol.ErrorEnvelope;
import dev.sluice.runtime.protocol.StreamWire;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.Route;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * OpenAI chat completions (SPEC API-1) as a client protocol: {@code data:} events ending with
 * {@code [DONE]}, {@code : keep-alive} comments, errors in OpenAI's envelope.
 */
public final class ChatCompletions implements ClientProtocol<ChatRequest> {

    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOTHING = new byte[0];

    private final OpenAiCodec codec;
    private final ObjectMapper mapper;

    /**
     * @param codec the OpenAI codec
     * @param mapper JSON (error events)
     */
    public ChatCompletions(OpenAiCodec codec, ObjectMapper mapper) {
        this.codec = codec;
        this.mapper = mapper;
    }

    @Override
    public ErrorEnvelope envelope() {
        return ErrorEnvelope.OPENAI;
    }

    @Override
    public ChatRequest read(byte[] body, String requestId) {
        return codec.readChatRequest(body);
    }

    @Override
    public String model(ChatRequest request) {
        return request.model();
    }

    @Override
    public ClientRequest routed(ChatRequest request, byte[] body, Map<String, String> forwardable) {
        return new ClientRequest.Chat(request, forwardable);
    }

    @Override
    public byte[] complete(ChatRequest request, Reply.Complete answer, Route route) {
        // an OpenAI-compatible upstream's answer goes out as it came, not written again (issue 26)
        return answer.openAiBody() != null ? answer.openAiBody() : codec.writeChatResponse(answer.response());
    }

    @Override
    public StreamWire<StreamChunk> stream(ChatRequest request, Route route) {
        boolean usageAsked = OpenAiCodec.clientAskedForUsage(request);
        return new StreamWire<>() {
            @Override
            public byte[] frame(StreamChunk chunk) {
                if (!usageAsked && chunk.usage() != null && chunk.choices().isEmpty() && chunk.kind() != FrameKind.HEARTBEAT) {
                    // Sluice asked the upstream for this usage-only chunk; a client that did not ask never sees it
                    return NOTHING;
                }
                return chunk.kind() == FrameKind.HEARTBEAT ? KEEP_ALIVE : codec.writeChunkEvent(chunk);
            }

            @Override
            public byte[] keepAlive() {
                return KEEP_ALIVE;
            }

            @Override
            public byte[] error(String code, String text, boolean watchdog) {
                // OpenAI SDKs raise on an error event; after a watchdog's the stream also ends properly
                byte[] error = streamError(code, text);
                return watchdog ? concat(error, OpenAiCodec.DONE_EVENT) : error;
            }

            @Override
            public byte[] end() {
                return OpenAiCodec.DONE_EVENT;
            }
        };
    }

    private byte[] streamError(String code, String message) {
        ObjectNode root = mapper.createObjectNode();
        ObjectNode err = root.putObject("error");
        err.put("message", message);
        err.put("type", "server_error");
        err.put("code", code);
        return ("data: " + root + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
