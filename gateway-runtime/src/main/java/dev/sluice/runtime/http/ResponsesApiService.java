package dev.sluice.runtime.http;

import dev.sluice.runtime.telemetry.TokenCounts;
import dev.sluice.runtime.telemetry.RequestRecord;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.responses.ResponsesCodec;
import dev.sluice.runtime.responses.ResponsesRequest;
import dev.sluice.runtime.responses.ResponsesStreamTranslator;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.RequestRouter;
import dev.sluice.runtime.stream.Signal;
import dev.sluice.runtime.stream.SseEvent;
import java.util.Map;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;

/**
 * The OpenAI Responses API under {@code /v1} (SPEC API-7, OF-1): {@code POST /responses}, routed
 * like chat completions — failover, combos, resilience, admission, stream watchdogs — passed
 * through to connections whose upstream serves the Responses API (the {@code openai} provider;
 * any connection with {@code responsesApi: true}), translated through the canonical model to any
 * other. A body the canonical model cannot carry (an item type it does not know, {@code
 * previous_response_id} …) is served by passthrough connections only: the others are passed over,
 * and when none is left the answer is the 400 naming what cannot be translated (issue 32).
 * Built-in tools a translated upstream cannot run are dropped and named in
 * {@code X-Sluice-Dropped-Tools}; {@code background: true} is served synchronously, which
 * {@code X-Sluice-Warning} says. Errors get the OpenAI envelope.
 */
final class ResponsesApiService implements HttpService {

    static final HeaderName DROPPED_TOOLS = HeaderNames.create("X-Sluice-Dropped-Tools");
    static final HeaderName WARNING = HeaderNames.create("X-Sluice-Warning");

    private final Json json;
    private final Authenticator auth;
    private final ClientAffinity affinity;
    private final ResponsesCodec codec;
    private final RequestRouter router;
    private final InstantSource clock;

    ResponsesApiService(Json json, Authenticator auth, RequestRouter router, InstantSource clock, ClientAffinity affinity) {
        this.affinity = affinity;
        this.json = json;
        this.auth = auth;
        this.codec = new ResponsesCodec(json.mapper());
        this.router = router;
        this.clock = clock;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/responses", this::responses);
    }

    private void responses(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        byte[] body = json.body(req);
        ResponsesRequest request = codec.read(body);
        caller = affinity.of(req, res, caller, body, request.chat().model());
        String requestId = RequestIds.of(req);
        String id = "resp_" + (requestId.startsWith("req_") ? requestId.substring(4) : requestId);
        long createdAt = clock.millis() / 1000;
        // passed through to upstreams that serve the Responses API themselves (built-in tools, reasoning items, include),
        // translated through the canonical model to any other
        // a body the canonical model cannot carry goes to passthrough connections only, the others passed over (issue 32)
        Outcome outcome = router.route(new ClientRequest.Dialect(request.chat(), PassthroughCall.OPENAI_RESPONSES,
                model -> codec.forUpstream(body, model), Map.of(), request.untranslatable()), caller, requestId);
        RequestRecord record = RequestTelemetry.routed(req, request.chat().model(), outcome);
        if (outcome instanceof Outcome.Unroutable u && u.why() == Outcome.Unroutable.Why.UNTRANSLATABLE && request.untranslatable() != null) {
            // no connection passes it through: what the translated path refuses, named as it would have been
            throw request.untranslatable();
        }
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            RoutedAnswers.routedHeaders(res, served);
            boolean translated = served.reply() instanceof Reply.Complete || served.reply() instanceof Reply.Stream;
            if (translated && !request.droppedTools().isEmpty()) {
                SafeHeaders.set(res, DROPPED_TOOLS, String.join(", ", request.droppedTools()));
            }
            if (request.background()) {
                res.header(WARNING, "background responses are served synchronously; the answer is this response");
            }
            switch (served.reply()) {
                case Reply.Complete c -> {
                    record.usage(TokenCounts.of(c.response().usage()));
                    Json.send(res, 200, codec.write(c.response(), id, createdAt, request.echo(), request.customTools()));
                }
                case Reply.Stream s -> relay(res, record, s, served, caller, requestId,
                        codec.stream(id, served.route().upstreamModel(), createdAt, request.echo(), request.customTools()));
                case Reply.Raw raw -> RawAnswers.relayJson(res, raw, served, record);
                case Reply.RawStream raw -> relayRaw(res, record, raw, served, caller, requestId, new ResponsesRawTail(json.mapper()));
                case Reply.Embeddings e -> throw new IllegalStateException("a Responses request served embeddings");
            }
        }
    }

    /**
     * Relays a Responses stream passed through, event by event and byte for byte, watched (SPEC
     * §15): comments while the upstream is silent; a watchdog ends it with {@code error} and
     * {@code response.failed} events that continue the upstream's sequence numbers.
     */
    private void relayRaw(ServerResponse res, RequestRecord record, Reply.RawStream stream, Outcome.Served served, Caller caller, String requestId,
            ResponsesRawTail tail) {
        StreamResponse.send(res, record, served, caller, requestId, stream.prefix(), stream.rest(), SseEvent::signal, stream.rules(),
                stream.startedNanos(), new StreamResponse.Wire<SseEvent>() {
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
                        return tail.failed(code, text);
                    }

                    @Override
                    public byte[] end() {
                        // the upstream's own response.completed was relayed with the rest
                        return new byte[0];
                    }
                });
    }

    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Relays a stream as Responses events, watched (SPEC §15): see {@link StreamResponse}. */
    private void relay(ServerResponse res, RequestRecord record, Reply.Stream stream, Outcome.Served served, Caller caller, String requestId,
            ResponsesStreamTranslator translator) {
        StreamResponse.send(res, record, served, caller, requestId, stream.prefix(), stream.rest(), Signal::of, stream.rules(), stream.startedNanos(),
                new StreamResponse.Wire<StreamChunk>() {
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
                });
    }
}
