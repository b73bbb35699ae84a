package dev.sluice.runtime.http;

import dev.sluice.runtime.store.Secrets;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.io.BoundedReads;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.anthropic.AnthropicStreamTranslator;
import dev.sluice.runtime.anthropic.TokenEstimate;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ChatReply;
import dev.sluice.runtime.routing.ChatRouter;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.routing.ComboRouter;
import dev.sluice.runtime.routing.DispatchResult;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.store.Connection;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.io.OutputStream;
import java.io.UncheckedIOException;

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
    private final ModelResolver resolver;
    private final ChatRouter chatRouter;
    private final ComboRouter combos;

    AnthropicMessagesService(Json json, Authenticator auth, AnthropicCodec codec, ModelResolver resolver, ChatRouter chatRouter,
            ComboRouter combos) {
        this.combos = combos;
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.resolver = resolver;
        this.chatRouter = chatRouter;
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
        Optional<Combo> combo = combos.combo(request.model());
        if (combo.isPresent()) {
            messagesThroughCombo(req, res, body, request, combo.get(), caller, requestId);
            return;
        }
        Route route = resolver.resolve(request.model()).orElseThrow(() -> RoutedAnswers.modelNotFound(request.model()));
        if (route.provider().executor().supportsPassthrough(PassthroughCall.ANTHROPIC_MESSAGES)) {
            passthrough(req, res, body, request.stream(), route, caller, requestId);
            return;
        }
        DispatchResult<ChatReply> result = chatRouter.chat(route, request, caller, requestId, RoutedAnswers.forwardableHeaders(req));
        if (!(result instanceof DispatchResult.Served<ChatReply> served)) {
            throw RoutedAnswers.failure(result, route);
        }
        try {
            RoutedAnswers.routedHeaders(res, served.connection(), route);
            String fallbackId = "msg_" + requestId;
            switch (served.value()) {
                case ChatReply.Complete c -> Json.send(res, 200, codec.writeMessage(c.response(), fallbackId, route.upstreamModel()));
                case ChatReply.Stream s -> relay(res, s.prefix(), s.rest(), codec.streamTranslator(fallbackId, route.upstreamModel()),
                        route, requestId, served.connection());
            }
        } finally {
            served.finished().run();
        }
    }

    /**
     * CO-1 on {@code /v1/messages}: each target is passed through when its provider speaks
     * Anthropic, translated otherwise; the first target that serves answers the client.
     */
    private void messagesThroughCombo(ServerRequest req, ServerResponse res, byte[] body, ChatRequest request, Combo combo, Caller caller,
            String requestId) {
        Map<String, String> headers = RoutedAnswers.forwardableHeaders(req);
        ComboRouter.Outcome<Object> outcome = combos.run(combo, caller, caller.client(), (route, c) -> {
            if (route.provider().executor().supportsPassthrough(PassthroughCall.ANTHROPIC_MESSAGES)) {
                return widen(chatRouter.passthrough(route, PassthroughCall.ANTHROPIC_MESSAGES, withModel(body, route.upstreamModel()),
                        request.stream(), c, requestId, headers));
            }
            return widen(chatRouter.chat(route, request, c, requestId, headers));
        });
        if (!(outcome.result() instanceof DispatchResult.Served<Object> served)) {
            throw RoutedAnswers.comboFailure(outcome, combo);
        }
        Route route = outcome.route();
        try {
            RoutedAnswers.routedHeaders(res, served.connection(), route);
            switch (served.value()) {
                case UpstreamResponse upstream -> relayPassthrough(res, upstream, served.connection(), route, request.stream(), requestId);
                case ChatReply.Complete c -> Json.send(res, 200, codec.writeMessage(c.response(), "msg_" + requestId, route.upstreamModel()));
                case ChatReply.Stream s -> relay(res, s.prefix(), s.rest(), codec.streamTranslator("msg_" + requestId, route.upstreamModel()),
                        route, requestId, served.connection());
                default -> throw new IllegalStateException("unexpected reply " + served.value().getClass());
            }
        } finally {
            outcome.finished().run();
        }
    }

    @SuppressWarnings("unchecked")
    private static DispatchResult<Object> widen(DispatchResult<?> r) {
        return (DispatchResult<Object>) r;
    }

    /**
     * The upstream speaks Anthropic itself (SPEC API-3: passthrough when the target is Claude): the
     * client's body goes up unchanged but for {@code model}, and the answer or stream comes back
     * byte for byte, so nothing the canonical model cannot carry (thinking signatures,
     * {@code cache_control}) is lost.
     */
    private void passthrough(ServerRequest req, ServerResponse res, byte[] body, boolean stream, Route route, Caller caller,
            String requestId) {
        byte[] upstreamBody = withModel(body, route.upstreamModel());
        DispatchResult<UpstreamResponse> result = chatRouter.passthrough(route, PassthroughCall.ANTHROPIC_MESSAGES, upstreamBody,
                stream, caller, requestId, RoutedAnswers.forwardableHeaders(req));
        if (!(result instanceof DispatchResult.Served<UpstreamResponse> served)) {
            throw RoutedAnswers.failure(result, route);
        }
        try {
            RoutedAnswers.routedHeaders(res, served.connection(), route);
            relayPassthrough(res, served.value(), served.connection(), route, stream, requestId);
        } finally {
            served.finished().run();
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
     * events of one chunk are written together; nothing waits for a later chunk.
     */
    private void relay(ServerResponse res, java.util.List<StreamChunk> prefix, ChunkStream rest, AnthropicStreamTranslator translator, Route route,
            String requestId, Connection connection) {
        res.status(Status.OK_200);
        RoutedAnswers.streamHeaders(res);
        try (rest; OutputStream out = res.outputStream()) {
            for (StreamChunk chunk : prefix) {
                write(out, translator.next(chunk));
            }
            StreamChunk chunk;
            while (true) {
                try {
                    chunk = rest.next();
                } catch (IOException | RuntimeException e) {
                    // after the first byte the stream is never replayed: the client is told in-band, and the
                    // Anthropic SDKs raise on an error event
                    LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": upstream stream of "
                            + route.provider().id() + " failed mid-stream: " + e.getMessage());
                    write(out, translator.error("[" + route.provider().id() + "/" + route.upstreamModel()
                            + "] upstream stream failed: " + Secrets.scrub(String.valueOf(e.getMessage()), connection)));
                    return;
                }
                if (chunk == null) {
                    break;
                }
                write(out, translator.next(chunk));
            }
            write(out, translator.end());
        } catch (IOException | UncheckedIOException e) {
            // the client went away: closing the upstream stream (try-with-resources) is all there is to do
            LOG.log(System.Logger.Level.DEBUG, "request " + requestId + ": client disconnected during stream");
        }
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
