package dev.sluice.runtime.protocol.responses;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.protocol.ClientProtocol;
import dev.sluice.runtime.protocol.ErrorEnvelope;
import dev.sluice.runtime.protocol.StreamWire;
import dev.sluice.runtime.responses.ResponsesCodec;
import dev.sluice.runtime.responses.ResponsesRequest;
import dev.sluice.runtime.responses.ResponsesStreamTranslator;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.stream.SseEvent;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The OpenAI Responses API (SPEC API-7, OF-1) as a client protocol: passed through to connections whose
 * upstream serves it, translated through the canonical model to any other. A body the canonical model
 * cannot carry (an item type it does not know, {@code previous_response_id} …) is served by passthrough
 * connections only: the others are passed over, and when none is left the answer is the 400 naming what
 * cannot be translated (issue 32). Built-in tools a translated upstream cannot run are dropped and named
 * in {@code X-Sluice-Dropped-Tools}; {@code background: true} is served synchronously, which
 * {@code X-Sluice-Warning} says. Errors get the OpenAI envelope.
 */
public final class ResponsesApi implements ClientProtocol<ResponsesApi.Request> {

    /** Names the built-in tools a translated upstream could not run. */
    public static final String DROPPED_TOOLS = "X-Sluice-Dropped-Tools";
    /** Says a background response was served synchronously. */
    public static final String WARNING = "X-Sluice-Warning";

    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * One Responses request.
     *
     * @param body the request read
     * @param id the response's id ({@code resp_…} from the request id)
     * @param createdAt when it was made, epoch seconds
     */
    public record Request(ResponsesRequest body, String id, long createdAt) {
    }

    private final ResponsesCodec codec;
    private final ObjectMapper mapper;
    private final InstantSource clock;

    /**
     * @param mapper JSON
     * @param clock the clock ({@code created_at})
     */
    public ResponsesApi(ObjectMapper mapper, InstantSource clock) {
        this.codec = new ResponsesCodec(mapper);
        this.mapper = mapper;
        this.clock = clock;
    }

    @Override
    public ErrorEnvelope envelope() {
        return ErrorEnvelope.OPENAI;
    }

    @Override
    public Request read(byte[] body, String requestId) {
        ResponsesRequest request = codec.read(body);
        return new Request(request, "resp_" + (requestId.startsWith("req_") ? requestId.substring(4) : requestId), clock.millis() / 1000);
    }

    @Override
    public String model(Request request) {
        return request.body().chat().model();
    }

    @Override
    public ClientRequest routed(Request request, byte[] body, Map<String, String> forwardable) {
        // passed through to upstreams that serve the Responses API themselves (built-in tools, reasoning items, include),
        // translated through the canonical model to any other; a body the canonical model cannot carry goes to
        // passthrough connections only, the others passed over (issue 32)
        return new ClientRequest.Dialect(request.body().chat(), PassthroughCall.OPENAI_RESPONSES, model -> codec.forUpstream(body, model),
                Map.of(), request.body().untranslatable());
    }

    @Override
    public RuntimeException refusal(Request request, Outcome outcome) {
        if (outcome instanceof Outcome.Unroutable u && u.why() == Outcome.Unroutable.Why.UNTRANSLATABLE
                && request.body().untranslatable() != null) {
            // no connection passes it through: what the translated path refuses, named as it would have been
            return request.body().untranslatable();
        }
        return null;
    }

    @Override
    public Map<String, String> headers(Request request, Reply reply) {
        Map<String, String> headers = new LinkedHashMap<>();
        boolean translated = reply instanceof Reply.Complete || reply instanceof Reply.Stream;
        if (translated && !request.body().droppedTools().isEmpty()) {
            headers.put(DROPPED_TOOLS, String.join(", ", request.body().droppedTools()));
        }
        if (request.body().background()) {
            headers.put(WARNING, "background responses are served synchronously; the answer is this response");
        }
        return headers;
    }

    @Override
    public byte[] complete(Request request, Reply.Complete answer, Route route) {
        ResponsesRequest r = request.body();
        return codec.write(answer.response(), request.id(), request.createdAt(), r.echo(), r.customTools());
    }

    @Override
    public StreamWire<StreamChunk> stream(Request request, Route route) {
        ResponsesRequest r = request.body();
        ResponsesStreamTranslator translator = codec.stream(request.id(), route.upstreamModel(), request.createdAt(), r.echo(), r.customTools());
        return new StreamWire<>() {
            @Override
            public byte[] frame(StreamChunk chunk) {
                return translator.next(chunk);
            }

            @Override
            public byte[] keepAlive() {
                return translator.keepAlive();
            }

            @Override
            public byte[] error(String code, String text, boolean watchdog) {
                // the SDKs raise on the error event; response.failed closes the response
                return translator.error(code, text);
            }

            @Override
            public byte[] end() {
                return translator.end();
            }
        };
    }

    @Override
    public StreamWire<SseEvent> passthroughStream(Request request) {
        ResponsesRawTail tail = new ResponsesRawTail(mapper);
        return new StreamWire<>() {
            @Override
            public byte[] frame(SseEvent event) {
                tail.saw(event);
                return event.bytes();
            }

            @Override
            public byte[] keepAlive() {
                return KEEP_ALIVE;
            }

            @Override
            public byte[] error(String code, String text, boolean watchdog) {
                // error and response.failed events that continue the upstream's sequence numbers
                return tail.failed(code, text);
            }

            @Override
            public byte[] end() {
                // the upstream's own response.completed was relayed with the rest
                return new byte[0];
            }
        };
    }

    @Override
    public byte[] passthroughStreamError(String text) {
        return new ResponsesRawTail(mapper).failed("upstream_stream_failed", text);
    }
}
