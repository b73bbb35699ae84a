package dev.sluice.runtime.http;

import dev.sluice.runtime.store.Secrets;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.RequestRouter;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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

    private static final System.Logger LOG = System.getLogger(OpenAiApiService.class.getName());
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final Json json;
    private final Authenticator auth;
    private final OpenAiCodec codec;
    private final ModelResolver resolver;
    private final RequestRouter router;
    private final ProviderCatalog catalog;
    private final ConnectionStore connections;
    private final ComboStore comboStore;

    OpenAiApiService(Json json, Authenticator auth, OpenAiCodec codec, ModelResolver resolver, RequestRouter router,
            ProviderCatalog catalog, ConnectionStore connections, ComboStore comboStore) {
        this.comboStore = comboStore;
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.resolver = resolver;
        this.router = router;
        this.catalog = catalog;
        this.connections = connections;
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
        String requestId = RequestIds.of(req);
        Outcome outcome = router.route(new ClientRequest.Chat(request, RoutedAnswers.forwardableHeaders(req)), caller, requestId);
        // the connection's permit (§12) and the combo's in-flight count are held until the answer is written
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            Route route = served.route();
            RoutedAnswers.routedHeaders(res, served.connection(), route);
            switch (served.reply()) {
                case Reply.Complete c -> Json.send(res, 200, codec.writeChatResponse(c.response()));
                case Reply.Stream s -> relay(res, s.prefix(), s.rest(), route, requestId, served.connection());
                default -> throw new IllegalStateException("a chat request served " + served.reply().getClass().getSimpleName());
            }
        }
    }

    /** Relays a stream chunk by chunk: write, flush, read the next; nothing is buffered. */
    private void relay(ServerResponse res, List<StreamChunk> prefix, ChunkStream rest, Route route, String requestId,
            Connection connection) {
        res.status(Status.OK_200);
        RoutedAnswers.streamHeaders(res);
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
        Outcome outcome = router.route(new ClientRequest.Embeddings(request), caller, RequestIds.of(req));
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            RoutedAnswers.routedHeaders(res, served.connection(), served.route());
            if (!(served.reply() instanceof Reply.Embeddings e)) {
                throw new IllegalStateException("an embeddings request served " + served.reply().getClass().getSimpleName());
            }
            Json.send(res, 200, e.bodyJson().getBytes(StandardCharsets.UTF_8));
        }
    }

    private void models(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        ObjectNode root = json.object().put("object", "list");
        ArrayNode data = root.putArray("data");
        routableModels(caller).forEach((id, owner) -> data.add(modelObject(id, owner)));
        json.send(res, 200, root);
    }

    /** {@code GET /v1/models/{provider/model}} (the OpenAI SDKs' {@code models.retrieve}). */
    private void model(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        String id = req.path().pathParameters().get("id");
        Map<String, String> routable = routableModels(caller);
        String owner = routable.get(id);
        if (owner == null) {
            // a bare model name resolves like it does for chat (the first provider listing it)
            owner = resolver.resolve(id).map(r -> r.provider().id() + "/" + r.upstreamModel())
                    .filter(routable::containsKey).map(routable::get).orElse(null);
        }
        if (owner == null) {
            throw new ApiException(404, "invalid_request_error", "model_not_found",
                    "The model '" + id + "' does not exist or is not routable.", "model", Map.of());
        }
        json.send(res, 200, modelObject(id, owner));
    }

    private ObjectNode modelObject(String id, String owner) {
        return json.object().put("id", id).put("object", "model").put("created", 0).put("owned_by", owner);
    }

    /** Every model id ({@code provider/model}) the caller can route to, with its provider, in listing order. */
    private Map<String, String> routableModels(Caller caller) {
        Map<String, String> models = new LinkedHashMap<>();
        // API-2: combos are models clients can name
        for (Combo c : comboStore.list()) {
            models.put(c.name(), "combo");
        }
        List<Connection> all = connections.list();
        for (Provider p : catalog.withConnections()) {
            List<Connection> enabled = all.stream()
                    .filter(c -> c.provider().equals(p.id()) && c.enabled() && caller.mayUse(c.id())).toList();
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

}
