package dev.sluice.runtime.http;

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
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;

/**
 * The OpenAI Responses API under {@code /v1} (SPEC API-7, OF-1): {@code POST /responses}, routed
 * like chat completions — failover, combos, resilience, admission, stream watchdogs — to any
 * provider through the canonical model. Built-in tools a translated upstream cannot run are
 * dropped and named in {@code X-Sluice-Dropped-Tools}; {@code background: true} is served
 * synchronously, which {@code X-Sluice-Warning} says. Errors get the OpenAI envelope.
 */
final class ResponsesApiService implements HttpService {

    static final HeaderName DROPPED_TOOLS = HeaderNames.create("X-Sluice-Dropped-Tools");
    static final HeaderName WARNING = HeaderNames.create("X-Sluice-Warning");

    private final Json json;
    private final Authenticator auth;
    private final ResponsesCodec codec;
    private final RequestRouter router;
    private final InstantSource clock;

    ResponsesApiService(Json json, Authenticator auth, RequestRouter router, InstantSource clock) {
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
        ResponsesRequest request = codec.read(json.body(req));
        String requestId = RequestIds.of(req);
        String id = "resp_" + (requestId.startsWith("req_") ? requestId.substring(4) : requestId);
        long createdAt = clock.millis() / 1000;
        Outcome outcome = router.route(new ClientRequest.Chat(request.chat(), RoutedAnswers.forwardableHeaders(req)), caller, requestId);
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            RoutedAnswers.routedHeaders(res, served.connection(), served.route());
            if (!request.droppedTools().isEmpty()) {
                res.header(DROPPED_TOOLS, String.join(", ", request.droppedTools()));
            }
            if (request.background()) {
                res.header(WARNING, "background responses are served synchronously; the answer is this response");
            }
            switch (served.reply()) {
                case Reply.Complete c -> Json.send(res, 200, codec.write(c.response(), id, createdAt, request.echo(),
                        request.customTools()));
                case Reply.Stream s -> relay(res, s, served, caller, requestId,
                        codec.stream(id, served.route().upstreamModel(), createdAt, request.echo(), request.customTools()));
                default -> throw new IllegalStateException("a Responses request served " + served.reply().getClass().getSimpleName());
            }
        }
    }

    /** Relays a stream as Responses events, watched (SPEC §15): see {@link StreamResponse}. */
    private void relay(ServerResponse res, Reply.Stream stream, Outcome.Served served, Caller caller, String requestId,
            ResponsesStreamTranslator translator) {
        StreamResponse.send(res, served, caller, requestId, stream.prefix(), stream.rest(), Signal::of, stream.rules(), stream.startedNanos(),
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
