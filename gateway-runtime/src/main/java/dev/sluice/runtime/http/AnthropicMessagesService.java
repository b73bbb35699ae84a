package dev.sluice.runtime.http;

import dev.sluice.runtime.store.Secrets;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.io.BoundedReads;
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
import dev.sluice.runtime.stream.StreamEnding;
import dev.sluice.runtime.stream.StreamRelay;
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
    private final AnthropicCodec codec;
    private final RequestRouter router;

    AnthropicMessagesService(Json json, Authenticator auth, AnthropicCodec codec, RequestRouter router) {
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
        String requestId = RequestIds.of(req);
        // CO-1, API-3: each target is passed through when its provider speaks Anthropic, translated otherwise
        Outcome outcome = router.route(new ClientRequest.Dialect(request, PassthroughCall.ANTHROPIC_MESSAGES,
                model -> withModel(body, model), RoutedAnswers.forwardableHeaders(req)), caller, requestId);
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            Route route = served.route();
            RoutedAnswers.routedHeaders(res, served.connection(), route);
            String fallbackId = "msg_" + requestId;
            switch (served.reply()) {
                case Reply.Raw raw -> relayPassthrough(res, raw.response(), served.connection(), route, raw.stream(), requestId);
                case Reply.RawStream raw -> relayRaw(res, raw, served, caller, requestId);
                case Reply.Complete c -> Json.send(res, 200, codec.writeMessage(c.response(), fallbackId, route.upstreamModel()));
                case Reply.Stream s -> relay(res, s, codec.streamTranslator(fallbackId, route.upstreamModel()), served, caller,
                        requestId);
                case Reply.Embeddings e -> throw new IllegalStateException("a Messages request served embeddings");
            }
        }
    }

    /** Relays an accepted passthrough answer byte for byte (and closes it). */
    private void relayPassthrough(ServerResponse res, UpstreamResponse accepted, Connection connection, Route route, boolean stream,
            String requestId) {
        try (UpstreamResponse upstream = accepted) {
            if (!stream) {
                byte[] answer;
                try {
                    answer = BoundedReads.read(upstream.body(), -1, MAX_ANSWER_BYTES);
                } catch (IOException e) {
                    throw new ApiException(502, "server_error", "network_error", "[" + route.provider().id() + "/"
                            + route.upstreamModel() + "] the upstream answer could not be read: "
                            + Secrets.scrub(String.valueOf(e.getMessage()), connection), null, java.util.Map.of());
                }
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
                                + route.provider().id() + " failed mid-stream: " + e.getMessage());
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
     * Relays an Anthropic stream passed through, event by event and byte for byte, watched by the
     * stream watchdogs (SPEC §15): {@code ping} events while the upstream is silent; a stall, a
     * too-slow stream or the attempt's deadline ends it with an {@code error} event.
     */
    private void relayRaw(ServerResponse res, Reply.RawStream stream, Outcome.Served served, Caller caller, String requestId) {
        Route route = served.route();
        Connection connection = served.connection();
        res.status(Status.OK_200);
        RoutedAnswers.streamHeaders(res);
        StreamEnding ending;
        String[] detail = {null};
        try (OutputStream out = res.outputStream()) {
            ending = StreamRelay.relay(stream.prefix(), stream.rest(), new StreamRelay.Sink<SseEvent>() {
                @Override
                public void frame(SseEvent event) throws IOException {
                    out.write(event.bytes());
                    out.flush();
                }

                @Override
                public void keepAlive() throws IOException {
                    out.write(PING);
                    out.flush();
                }

                @Override
                public void error(String code, String message, boolean watchdog) throws IOException {
                    String safe = Secrets.scrub(message, connection);
                    detail[0] = safe;
                    LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": passthrough stream of " + route.provider().id()
                            + (watchdog ? " ended by the gateway: " : " failed mid-stream: ") + safe);
                    String text = "[" + route.provider().id() + "/" + route.upstreamModel() + "] " + (watchdog ? "" : "upstream stream failed: ")
                            + safe;
                    out.write(("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\","
                            + (watchdog ? "\"code\":" + json.mapper().writeValueAsString(code) + "," : "")
                            + "\"message\":" + json.mapper().writeValueAsString(text) + "}}\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }

                @Override
                public void end() {
                    // the upstream's own message_stop was relayed with the rest
                }
            }, SseEvent::signal, stream.rules(), stream.startedNanos(), System::nanoTime, caller.client()::connected);
        } catch (IOException | UncheckedIOException e) {
            ending = StreamEnding.CLIENT_GONE;
        }
        served.streamEnded(ending, detail[0]);
    }

    /** Largest non-streaming passthrough answer relayed. */
    private static final long MAX_ANSWER_BYTES = 64L * 1024 * 1024;

    private byte[] withModel(byte[] body, String model) {
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
     * events of one chunk are written together; nothing waits for a later chunk. Watched by the
     * stream watchdogs (SPEC §15): {@code ping} events while the upstream is silent; a stall, a
     * too-slow stream or the attempt's deadline ends it with an {@code error} event.
     */
    private void relay(ServerResponse res, Reply.Stream stream, AnthropicStreamTranslator translator, Outcome.Served served,
            Caller caller, String requestId) {
        Route route = served.route();
        Connection connection = served.connection();
        res.status(Status.OK_200);
        RoutedAnswers.streamHeaders(res);
        StreamEnding ending;
        String[] detail = {null};
        try (OutputStream out = res.outputStream()) {
            ending = StreamRelay.relay(stream.prefix(), stream.rest(), new StreamRelay.Sink<StreamChunk>() {
                @Override
                public void frame(StreamChunk chunk) throws IOException {
                    write(out, translator.next(chunk));
                }

                @Override
                public void keepAlive() throws IOException {
                    write(out, translator.next(StreamChunk.heartbeat("", route.upstreamModel())));
                }

                @Override
                public void error(String code, String message, boolean watchdog) throws IOException {
                    String safe = Secrets.scrub(message, connection);
                    detail[0] = safe;
                    // after the first byte the stream is never replayed: the client is told in-band, and the
                    // Anthropic SDKs raise on an error event
                    LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": stream of " + route.provider().id()
                            + (watchdog ? " ended by the gateway: " : " failed mid-stream: ") + safe);
                    String prefix = "[" + route.provider().id() + "/" + route.upstreamModel() + "] ";
                    write(out, watchdog ? translator.error(code, prefix + safe) : translator.error(prefix + "upstream stream failed: " + safe));
                }

                @Override
                public void end() throws IOException {
                    write(out, translator.end());
                }
            }, Signal::of, stream.rules(), stream.startedNanos(), System::nanoTime, caller.client()::connected);
        } catch (IOException | UncheckedIOException e) {
            ending = StreamEnding.CLIENT_GONE;
        }
        if (ending == StreamEnding.CLIENT_GONE) {
            LOG.log(System.Logger.Level.DEBUG, "request " + requestId + ": client disconnected during stream");
        }
        served.streamEnded(ending, detail[0]);
    }

    private static void write(OutputStream out, byte[] events) throws IOException {
        if (events.length > 0) {
            out.write(events);
            out.flush();
        }
    }

    /** A local estimate (see {@link TokenEstimate}); the model is validated but not routed, no upstream is called. */
    private void countTokens(ServerRequest req, ServerResponse res) {
        auth.client(req);
        ChatRequest request = codec.readCountTokensRequest(json.body(req));
        json.send(res, 200, json.object().put("input_tokens", TokenEstimate.inputTokens(request)));
    }
}
