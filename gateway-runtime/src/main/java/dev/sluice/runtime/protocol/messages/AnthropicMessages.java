package dev.sluice.runtime.protocol.messages;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.anthropic.AnthropicStreamTranslator;
import dev.sluice.runtime.io.TopLevelFields;
import dev.sluice.runtime.protocol.ClientProtocol;
import dev.sluice.runtime.protocol.ErrorEnvelope;
import dev.sluice.runtime.protocol.StreamWire;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.stream.SseEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * The Anthropic Messages API (SPEC API-3) as a client protocol: passed through to providers that speak
 * it, translated for the others; {@code ping} events while the upstream is silent; errors in
 * Anthropic's envelope and as {@code error} events.
 */
public final class AnthropicMessages implements ClientProtocol<AnthropicMessages.Request> {

    private static final byte[] PING = "event: ping\ndata: {\"type\": \"ping\"}\n\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * One Messages request.
     *
     * @param chat the request in the canonical model
     * @param messageId the id of a translated answer ({@code msg_<request id>})
     */
    public record Request(ChatRequest chat, String messageId) {
    }

    private final AnthropicCodec codec;
    private final ObjectMapper mapper;

    /**
     * @param codec the Anthropic codec
     * @param mapper JSON (the model spliced into a passed-through body, error events)
     */
    public AnthropicMessages(AnthropicCodec codec, ObjectMapper mapper) {
        this.codec = codec;
        this.mapper = mapper;
    }

    @Override
    public ErrorEnvelope envelope() {
        return ErrorEnvelope.ANTHROPIC;
    }

    @Override
    public Request read(byte[] body, String requestId) {
        return new Request(codec.readMessagesRequest(body), "msg_" + requestId);
    }

    @Override
    public String model(Request request) {
        return request.chat().model();
    }

    @Override
    public ClientRequest routed(Request request, byte[] body, Map<String, String> forwardable) {
        // CO-1, API-3: each target is passed through when its provider speaks Anthropic, translated otherwise
        return new ClientRequest.Dialect(request.chat(), PassthroughCall.ANTHROPIC_MESSAGES, model -> withModel(body, model), forwardable);
    }

    @Override
    public byte[] complete(Request request, Reply.Complete answer, Route route) {
        return codec.writeMessage(answer.response(), request.messageId(), route.upstreamModel());
    }

    @Override
    public StreamWire<StreamChunk> stream(Request request, Route route) {
        String model = route.upstreamModel();
        AnthropicStreamTranslator translator = codec.streamTranslator(request.messageId(), model);
        return new StreamWire<>() {
            @Override
            public byte[] frame(StreamChunk chunk) {
                return translator.next(chunk);
            }

            @Override
            public byte[] keepAlive() {
                return translator.next(StreamChunk.heartbeat("", model));
            }

            @Override
            public byte[] error(String code, String text, boolean watchdog) {
                // the Anthropic SDKs raise on an error event
                return watchdog ? translator.error(code, text) : translator.error(text);
            }

            @Override
            public byte[] end() {
                return translator.end();
            }
        };
    }

    @Override
    public StreamWire<SseEvent> passthroughStream(Request request) {
        return new StreamWire<>() {
            @Override
            public byte[] frame(SseEvent event) {
                return event.bytes();
            }

            @Override
            public byte[] keepAlive() {
                return PING;
            }

            @Override
            public byte[] error(String code, String text, boolean watchdog) {
                return errorEvent(watchdog ? code : null, text);
            }

            @Override
            public byte[] end() {
                // the upstream's own message_stop was relayed with the rest
                return new byte[0];
            }
        };
    }

    @Override
    public byte[] passthroughStreamError(String text) {
        return errorEvent(null, text);
    }

    /** An Anthropic {@code error} event ({@code code} only for the gateway's own watchdogs). */
    private byte[] errorEvent(String code, String text) {
        try {
            return ("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\","
                    + (code != null ? "\"code\":" + mapper.writeValueAsString(code) + "," : "")
                    + "\"message\":" + mapper.writeValueAsString(text) + "}}\n\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] withModel(byte[] body, String model) {
        byte[] spliced = TopLevelFields.withString(body, "model", model, Set.of());
        if (spliced != null) {
            return spliced;
        }
        try {
            ObjectNode tree = (ObjectNode) mapper.readTree(body);
            tree.put("model", model);
            return mapper.writeValueAsBytes(tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
