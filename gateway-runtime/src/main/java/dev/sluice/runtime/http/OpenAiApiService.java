package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.EmbeddingCall;
import dev.sluice.api.EmbeddingOutcome;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.routing.AttemptResult;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ChatReply;
import dev.sluice.runtime.routing.ChatRouter;
import dev.sluice.runtime.routing.DispatchResult;
import dev.sluice.runtime.routing.Dispatcher;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The OpenAI-compatible client API under {@code /v1}: chat completions (API-1), models (API-2)
 * and embeddings (API-4). Every routed answer carries the API-5 headers.
 */
final class OpenAiApiService implements HttpService {

    static final HeaderName CONNECTION_ID = HeaderNames.create("X-Sluice-Connection-Id");
    static final HeaderName PROVIDER = HeaderNames.create("X-Sluice-Provider");
    static final HeaderName MODEL = HeaderNames.create("X-Sluice-Model");

    private static final System.Logger LOG = System.getLogger(OpenAiApiService.class.getName());
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final io.helidon.http.Header SSE = HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    private static final io.helidon.http.Header NO_CACHE = HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-cache");
    private static final io.helidon.http.Header NO_BUFFERING = HeaderValues.create(HeaderNames.create("X-Accel-Buffering"), "no");

    private final Json json;
    private final Authenticator auth;
    private final OpenAiCodec codec;
    private final ModelResolver resolver;
    private final ChatRouter chatRouter;
    private final Dispatcher dispatcher;
    private final ProviderCatalog catalog;
    private final ConnectionStore connections;
    private final Duration attemptTimeout;

    OpenAiApiService(Json json, Authenticator auth, OpenAiCodec codec, ModelResolver resolver, ChatRouter chatRouter,
            Dispatcher dispatcher, ProviderCatalog catalog, ConnectionStore connections, Duration attemptTimeout) {
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.resolver = resolver;
        this.chatRouter = chatRouter;
        this.dispatcher = dispatcher;
        this.catalog = catalog;
        this.connections = connections;
        this.attemptTimeout = attemptTimeout;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/chat/completions", this::chat)
                .get("/models", this::models)
                .get("/models/{+id}", this::model)
                .post("/embeddings", this::embeddings);
    }

    private void chat(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        ChatRequest request = codec.readChatRequest(json.body(req));
        Route route = resolve(request.model());
        String requestId = RequestIds.of(req);
        DispatchResult<ChatReply> result = chatRouter.chat(route, request, caller, requestId, forwardableHeaders(req));
        if (!(result instanceof DispatchResult.Served<ChatReply> served)) {
            throw failure(result, route);
        }
        routedHeaders(res, served.connection(), route);
        switch (served.value()) {
            case ChatReply.Complete c -> Json.send(res, 200, codec.writeChatResponse(c.response()));
            case ChatReply.Stream s -> relay(res, s.prefix(), s.rest(), route, requestId, served.connection());
        }
    }

    /** The client headers executors may forward on purpose (SEC-5 allow-list), names in lower case. */
    static Map<String, String> forwardableHeaders(ServerRequest req) {
        Map<String, String> out = null;
        for (String name : dev.sluice.api.ChatCall.FORWARDABLE_CLIENT_HEADERS) {
            var value = req.headers().first(HeaderNames.create(name));
            if (value.isPresent()) {
                if (out == null) {
                    out = new HashMap<>(2);
                }
                out.put(name, value.get());
            }
        }
        return out == null ? Map.of() : out;
    }

    /** Relays a stream chunk by chunk: write, flush, read the next; nothing is buffered. */
    private void relay(ServerResponse res, List<StreamChunk> prefix, ChunkStream rest, Route route, String requestId,
            Connection connection) {
        res.status(Status.OK_200);
        res.header(SSE);
        res.header(NO_CACHE);
        res.header(NO_BUFFERING);
        try (rest; OutputStream out = res.outputStream()) {
            for (StreamChunk chunk : prefix) {
                out.write(codec.writeChunkEvent(chunk));
            }
            out.flush();
            StreamChunk chunk;
            while (true) {
                try {
                    chunk = rest.next();
                } catch (IOException | RuntimeException e) {
                    // an upstream (or plugin) failure after the first byte: the stream is never replayed,
                    // the client is told in-band (OpenAI SDKs raise on an error event)
                    LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": upstream stream of "
                            + route.provider().id() + " failed mid-stream: " + e.getMessage());
                    out.write(streamError(route, Secrets.scrub(String.valueOf(e.getMessage()), connection)));
                    out.flush();
                    return;
                }
                if (chunk == null) {
                    break;
                }
                out.write(chunk.kind() == FrameKind.HEARTBEAT ? KEEP_ALIVE : codec.writeChunkEvent(chunk));
                out.flush();
            }
            out.write(OpenAiCodec.DONE_EVENT);
        } catch (IOException | UncheckedIOException e) {
            // the client went away: closing the upstream stream (try-with-resources) is all there is to do
            LOG.log(System.Logger.Level.DEBUG, "request " + requestId + ": client disconnected during stream");
        }
    }

    private byte[] streamError(Route route, String message) {
        ObjectNode root = json.object();
        ObjectNode err = root.putObject("error");
        err.put("message", "[" + route.provider().id() + "/" + route.upstreamModel() + "] upstream stream failed: " + message);
        err.put("type", "server_error");
        err.put("code", "upstream_stream_error");
        return ("data: " + root + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private void embeddings(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        EmbeddingRequest request = codec.readEmbeddingRequest(json.body(req));
        Route route = resolve(request.model());
        if (!route.provider().executor().supportsEmbeddings()) {
            throw ApiException.badRequest("model", "Provider '" + route.provider().id() + "' does not serve embeddings.");
        }
        String requestId = RequestIds.of(req);
        EmbeddingRequest upstream = request.withModel(route.upstreamModel());
        DispatchResult<String> result = dispatcher.dispatch(route, caller, requestId, target -> {
            EmbeddingOutcome o = route.provider().executor().embed(new EmbeddingCall(upstream, target, requestId, attemptTimeout));
            return switch (o) {
                case EmbeddingOutcome.Completed c -> new AttemptResult.Ok<>(c.bodyJson(), c.head().status());
                case EmbeddingOutcome.Failed f -> new AttemptResult.Failed<>(f.failure());
            };
        });
        if (!(result instanceof DispatchResult.Served<String> served)) {
            throw failure(result, route);
        }
        routedHeaders(res, served.connection(), route);
        Json.send(res, 200, served.value().getBytes(StandardCharsets.UTF_8));
    }

    private void models(ServerRequest req, ServerResponse res) {
        auth.client(req);
        ObjectNode root = json.object().put("object", "list");
        ArrayNode data = root.putArray("data");
        routableModels().forEach((id, owner) -> data.add(modelObject(id, owner)));
        json.send(res, 200, root);
    }

    /** {@code GET /v1/models/{provider/model}} (the OpenAI SDKs' {@code models.retrieve}). */
    private void model(ServerRequest req, ServerResponse res) {
        auth.client(req);
        String id = req.path().pathParameters().get("id");
        String owner = routableModels().get(id);
        if (owner == null) {
            throw new ApiException(404, "invalid_request_error", "model_not_found",
                    "The model '" + id + "' does not exist or is not routable.", "model", Map.of());
        }
        json.send(res, 200, modelObject(id, owner));
    }

    private ObjectNode modelObject(String id, String owner) {
        return json.object().put("id", id).put("object", "model").put("created", 0).put("owned_by", owner);
    }

    /** Every routable model id ({@code provider/model}) with its provider, in listing order. */
    private Map<String, String> routableModels() {
        Map<String, String> models = new LinkedHashMap<>();
        List<Connection> all = connections.list();
        for (Provider p : catalog.withConnections()) {
            List<Connection> enabled = all.stream().filter(c -> c.provider().equals(p.id()) && c.enabled()).toList();
            if (enabled.isEmpty()) {
                continue;
            }
            for (ModelInfo m : p.descriptor().models()) {
                models.putIfAbsent(p.id() + "/" + m.id(), p.id());
            }
            for (Connection c : enabled) {
                for (String m : declaredModels(c)) {
                    models.putIfAbsent(p.id() + "/" + m, p.id());
                }
            }
        }
        return models;
    }

    /** Models a connection declares in {@code providerSpecificData.models} (custom providers list theirs this way). */
    private Set<String> declaredModels(Connection c) {
        Set<String> out = new LinkedHashSet<>();
        if (c.providerSpecificDataJson() == null) {
            return out;
        }
        try {
            JsonNode models = json.mapper().readTree(c.providerSpecificDataJson()).get("models");
            if (models != null && models.isArray()) {
                models.forEach(m -> {
                    if (m.isTextual() && !m.asText().isBlank()) {
                        out.add(m.asText());
                    }
                });
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "connection " + c.id() + " has unreadable providerSpecificData");
        }
        return out;
    }

    private Route resolve(String model) {
        return resolver.resolve(model).orElseThrow(() -> new ApiException(404, "invalid_request_error", "model_not_found",
                "The model '" + model + "' does not exist or is not routable: use provider/model with a provider that has a"
                        + " connection (see GET /v1/models).", "model", Map.of()));
    }

    private static void routedHeaders(ServerResponse res, Connection c, Route route) {
        res.header(CONNECTION_ID, c.id());
        res.header(PROVIDER, route.provider().id());
        res.header(MODEL, headerSafe(route.upstreamModel()));
    }

    /** Header values are ASCII: anything else in a model name is percent-encoded (UTF-8). */
    static String headerSafe(String value) {
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch < 0x20 || ch > 0x7e) {
                return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8);
            }
        }
        return value;
    }

    /** Maps an unserved dispatch to the API-6 error. */
    private static ApiException failure(DispatchResult<?> result, Route route) {
        String target = route.provider().id() + "/" + route.upstreamModel();
        return switch (result) {
            case DispatchResult.NoConnection<?> n -> new ApiException(404, "invalid_request_error", "model_not_found",
                    "The model '" + route.requested() + "' is not routable: provider '" + route.provider().id()
                            + "' has no enabled connection this key may use.", "model", Map.of());
            case DispatchResult.CoolingDown<?> c -> new ApiException(503, "server_error", "all_targets_cooling_down",
                    "[" + target + "] every connection is cooling down; retry after " + seconds(c.retryAfterMs()) + " s.",
                    null, Map.of("Retry-After", String.valueOf(seconds(c.retryAfterMs()))));
            case DispatchResult.Failed<?> f -> {
                // a status a client cannot take (1xx-3xx, 600+) is the gateway's own 502
                int status = f.verdict().status() >= 400 && f.verdict().status() <= 599 ? f.verdict().status() : 502;
                Map<String, String> headers = new HashMap<>();
                // API-5: a routed failure names the connection that answered last, like a success does
                headers.put(CONNECTION_ID.defaultCase(), f.connection().id());
                headers.put(PROVIDER.defaultCase(), route.provider().id());
                headers.put(MODEL.defaultCase(), headerSafe(route.upstreamModel()));
                if (f.verdict().retryAfterMs() != null && (status == 429 || status == 503)) {
                    headers.put("Retry-After", String.valueOf(seconds(f.verdict().retryAfterMs())));
                }
                String code = f.failure() instanceof UpstreamError e && e.errorCode() != null ? e.errorCode()
                        : f.verdict().reason().wireName();
                yield new ApiException(status, typeFor(status), code, "[" + target + "] " + Secrets.scrub(f.failure().describe(), f.connection())
                        + (f.attempts() > 1 ? " (after " + f.attempts() + " attempts)" : ""), null, headers);
            }
            case DispatchResult.Served<?> s -> throw new IllegalStateException("served is not a failure");
        };
    }

    private static long seconds(long ms) {
        return Math.max(1, (ms + 999) / 1000);
    }

    static String typeFor(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 429 -> "rate_limit_error";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
    }
}
