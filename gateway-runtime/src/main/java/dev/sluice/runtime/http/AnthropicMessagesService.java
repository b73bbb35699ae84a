package dev.sluice.runtime.http;

import dev.sluice.runtime.telemetry.TokenCounts;
import dev.sluice.runtime.telemetry.RequestRecord;
import dev.sluice.runtime.store.Secrets;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.anthropic.AnthropicStreamTranslator;
import dev.sluice.runtime.anthropic.TokenEstimate;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.RequestRouter;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.stream.Signal;
import dev.sluice.runtime.stream.SseEvent;
import dev.sluice.runtime.store.Connection;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The Anthropic Messages API under {@code /v1} (SPEC API-3): {@code POST /messages}, streaming and
 * not, routed like chat completions to any provider through the canonical model, and {@code POST
 * /messages/count_tokens}, answered with a local estimate. Errors get the Anthropic envelope from
 * the {@link ErrorMapper} (it chooses by path); every routed answer carries the API-5 headers.
 */
final class AnthropicMessagesService implements HttpService {

    private static final System.Logger LOG = System.getLogger(AnthropicMessagesService.class.getName());

    private final Json json;
    private final Authenticator auth;
    private final ClientAffinity affinity;
    private final AnthropicCodec codec;
    private final RequestRouter router;

    AnthropicMessagesService(Json json, Authenticator auth, AnthropicCodec codec, RequestRouter router, ClientAffinity affinity) {
        this.affinity = affinity;
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.router = router;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/messages", this::messages)
                .post("/messages/count_tokens", this::countTokens);
    }

    private void messages(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        byte[] body = json.body(req);
        ChatRequest request = codec.readMessagesRequest(body);
        caller = affinity.of(req, res, caller, body, request.model());
        String requestId = RequestIds.of(req);
        // CO-1, API-3: each target is passed through when its provider speaks Anthropic, translated otherwise
        Outcome outcome = router.route(new ClientRequest.Dialect(request, PassthroughCall.ANTHROPIC_MESSAGES,
                model -> withModel(body, model), RoutedAnswers.forwardableHeaders(req)), caller, requestId);
        RequestRecord record = RequestTelemetry.routed(req, request.model(), outcome);
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            Route route = served.route();
            RoutedAnswers.routedHeaders(res, served.connection(), route);
            String fallbackId = "msg_" + requestId;
            switch (served.reply()) {
                case Reply.Raw raw -> relayPassthrough(res, record, raw.response(), served.connection(), route, raw.stream(), requestId);
                case Reply.RawStream raw -> relayRaw(res, record, raw, served, caller, requestId);
                case Reply.Complete c -> {
                    record.usage(TokenCounts.of(c.response().usage()));
                    Json.send(res, 200, codec.writeMessage(c.response(), fallbackId, route.upstreamModel()));
                }
                case Reply.Stream s -> relay(res, record, s, codec.streamTranslator(fallbackId, route.upstreamModel()), served, caller,
                        requestId);
                case Reply.Embeddings e -> throw new IllegalStateException("a Messages request served embeddings");
            }
        }
    }

    /** Relays an accepted passthrough answer byte for byte (and closes it). */
    private void relayPassthrough(ServerResponse res, RequestRecord record, UpstreamResponse accepted, Connection connection, Route route, boolean stream,
            String requestId) {
        try (UpstreamResponse upstream = accepted) {
            if (!stream) {
                byte[] answer;
                try {
                    answer = upstream.wholeBody();
                } catch (IOException e) {
                    throw new ApiException(502, "server_error", "network_error", "[" + route.provider().id() + "/"
                            + route.upstreamModel() + "] the upstream answer could not be read: "
                            + Secrets.scrub(String.valueOf(e.getMessage()), connection), null, java.util.Map.of());
                }
                record.usage(TokenCounts.inAnswer(answer));
                Json.send(res, 200, answer);
                return;
            }
            res.status(Status.OK_200);
            RoutedAnswers.streamHeaders(res);
            try (OutputStream out = res.outputStream()) {
                byte[] buf = new byte[8192];
                int n;
                while (true) {
                    try {
                        n = upstream.body().read(buf);
                    } catch (IOException e) {
                        LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": passthrough stream of "
                                + route.provider().id() + " failed mid-stream: " + Secrets.scrub(String.valueOf(e.getMessage()), connection));
                        out.write(("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":"
                                + json.mapper().writeValueAsString("[" + route.provider().id() + "/" + route.upstreamModel()
                                        + "] upstream stream failed: " + Secrets.scrub(String.valueOf(e.getMessage()), connection))
                                + "}}\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        out.flush();
                        return;
                    }
                    if (n < 0) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | UncheckedIOException e) {
                LOG.log(System.Logger.Level.DEBUG, "request " + requestId + ": client disconnected during passthrough stream");
            }
        }
    }

    private static final byte[] PING = "event: ping\ndata: {\"type\": \"ping\"}\n\n".getBytes(StandardCharsets.US_ASCII);

    /**
     * Relays an Anthropic stream passed through, event by event and byte for byte, watched (SPEC
     * §15): {@code ping} events while the upstream is silent; a watchdog ends it with an
     * {@code error} event. See {@link StreamResponse}.
     */
    private void relayRaw(ServerResponse res, RequestRecord record, Reply.RawStream stream, Outcome.Served served, Caller caller, String requestId) {
        StreamResponse.send(res, record, served, caller, requestId, stream.prefix(), stream.rest(), SseEvent::signal, stream.rules(),
                stream.startedNanos(), new StreamResponse.Wire<SseEvent>() {
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
                });
    }

    /** An Anthropic {@code error} event ({@code code} only for the gateway's own watchdogs). */
    private byte[] errorEvent(String code, String text) {
        try {
            return ("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\","
                    + (code != null ? "\"code\":" + json.mapper().writeValueAsString(code) + "," : "")
                    + "\"message\":" + json.mapper().writeValueAsString(text) + "}}\n\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] withModel(byte[] body, String model) {
        byte[] spliced = dev.sluice.runtime.io.TopLevelFields.withString(body, "model", model, java.util.Set.of());
        if (spliced != null) {
            return spliced;
        }
        try {
            var tree = (com.fasterxml.jackson.databind.node.ObjectNode) json.mapper().readTree(body);
            tree.put("model", model);
            return json.mapper().writeValueAsBytes(tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Translates and relays a stream chunk by chunk: translate, write, flush, read the next. The
     * events of one chunk are written together; nothing waits for a later chunk. Watched (SPEC
     * §15): {@code ping} events while the upstream is silent; a watchdog ends it with an
     * {@code error} event. See {@link StreamResponse}.
     */
    private void relay(ServerResponse res, RequestRecord record, Reply.Stream stream, AnthropicStreamTranslator translator, Outcome.Served served,
            Caller caller, String requestId) {
        String model = served.route().upstreamModel();
        StreamResponse.send(res, record, served, caller, requestId, stream.prefix(), stream.rest(), Signal::of, stream.rules(),
                stream.startedNanos(), new StreamResponse.Wire<StreamChunk>() {
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
                });
    }

    /** A local estimate (see {@link TokenEstimate}); the model is validated but not routed, no upstream is called. */
    private void countTokens(ServerRequest req, ServerResponse res) {
        auth.client(req);
        ChatRequest request = codec.readCountTokensRequest(json.body(req));
        json.send(res, 200, json.object().put("input_tokens", TokenEstimate.inputTokens(request)));
    }
}
