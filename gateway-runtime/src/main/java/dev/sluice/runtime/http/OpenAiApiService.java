package dev.sluice.runtime.http;

import dev.sluice.runtime.telemetry.TokenCounts;
import dev.sluice.runtime.telemetry.RequestRecord;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.protocol.chat.ChatCompletions;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.ModelListing;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.entry.RequestRouter;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The OpenAI-compatible client API under {@code /v1}: chat completions (API-1), models (API-2)
 * and embeddings (API-4). Every routed answer carries the API-5 headers.
 */
final class OpenAiApiService implements HttpService {

    private static final System.Logger LOG = System.getLogger(OpenAiApiService.class.getName());

    private final Json json;
    private final Authenticator auth;
    private final ClientAffinity affinity;
    private final OpenAiCodec codec;
    private final RequestRouter router;
    private final ModelListing models;

    private final ProtocolHandler<ChatRequest> chat;

    OpenAiApiService(Json json, Authenticator auth, OpenAiCodec codec, RequestRouter router, ModelListing models, ClientAffinity affinity) {
        this.chat = new ProtocolHandler<>(new ChatCompletions(codec, json.mapper()), json, auth, router, affinity);
        this.affinity = affinity;
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.router = router;
        this.models = models;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/chat/completions", chat)
                .get("/models", this::models)
                .get("/models/{+id}", this::model)
                .post("/embeddings", this::embeddings);
    }

    private void embeddings(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        byte[] body = json.body(req);
        EmbeddingRequest request = codec.readEmbeddingRequest(body);
        caller = affinity.of(req, res, caller, body, request.model());
        RequestRecord record = RequestTelemetry.of(req);
        Outcome outcome = router.route(new ClientRequest.Embeddings(request), caller, RequestIds.of(req), record);
        RequestTelemetry.routed(record, request.model(), outcome);
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            RoutedAnswers.routedHeaders(res, served.connection(), served.route());
            if (!(served.reply() instanceof Reply.Embeddings e)) {
                throw new IllegalStateException("an embeddings request served " + served.reply().getClass().getSimpleName());
            }
            record.usage(TokenCounts.inAnswer(e.bodyJson()));
            Json.send(res, 200, e.bodyJson().getBytes(StandardCharsets.UTF_8));
        }
    }

    private void models(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        Map<String, String> routable = models.routable(caller);
        if (anthropic(req)) {
            json.send(res, 200, anthropicList(req, routable));
            return;
        }
        ObjectNode root = json.object().put("object", "list");
        ArrayNode data = root.putArray("data");
        routable.forEach((id, owner) -> data.add(modelObject(id, owner)));
        json.send(res, 200, root);
    }

    /** {@code GET /v1/models/{provider/model}} (the OpenAI SDKs' {@code models.retrieve}; Anthropic's shape with {@code anthropic-version}). */
    private void model(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        String id = req.path().pathParameters().get("id");
        String owner = models.owner(id, caller).orElseThrow(() -> new ApiException(404, "invalid_request_error", "model_not_found",
                "The model '" + id + "' does not exist or is not routable.", "model", Map.of()));
        json.send(res, 200, anthropic(req) ? anthropicModel(id) : modelObject(id, owner));
    }

    /** API-2: a client that sends {@code anthropic-version} (the Anthropic SDKs) gets Anthropic's list shape. */
    private static boolean anthropic(ServerRequest req) {
        return req.headers().first(ANTHROPIC_VERSION).isPresent();
    }

    private static final io.helidon.http.HeaderName ANTHROPIC_VERSION = io.helidon.http.HeaderNames.create("anthropic-version");
    /** Anthropic's page size: default and maximum. */
    static final int ANTHROPIC_DEFAULT_LIMIT = 20;
    static final int ANTHROPIC_MAX_LIMIT = 1000;

    /** Anthropic's list: {@code data} of models, {@code has_more}, {@code first_id}, {@code last_id}; {@code limit}, {@code after_id}, {@code before_id}. */
    private ObjectNode anthropicList(ServerRequest req, Map<String, String> routable) {
        int limit = ANTHROPIC_DEFAULT_LIMIT;
        var query = req.query();
        if (query.contains("limit")) {
            try {
                limit = Integer.parseInt(query.get("limit"));
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > ANTHROPIC_MAX_LIMIT) {
                throw ApiException.badRequest("limit", "'limit' must be an integer from 1 to " + ANTHROPIC_MAX_LIMIT + ".");
            }
        }
        List<String> ids = List.copyOf(routable.keySet());
        int from = 0;
        int to = ids.size();
        if (query.contains("after_id")) {
            from = ids.indexOf(query.get("after_id")) + 1;
        } else if (query.contains("before_id")) {
            to = Math.max(0, ids.indexOf(query.get("before_id")));
            from = Math.max(0, to - limit);
        }
        List<String> page = ids.subList(Math.min(from, to), Math.min(to, Math.min(from, to) + limit));
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        page.forEach(id -> data.add(anthropicModel(id)));
        root.put("has_more", Math.min(from, to) + page.size() < to);
        if (page.isEmpty()) {
            root.putNull("first_id");
            root.putNull("last_id");
        } else {
            root.put("first_id", page.getFirst());
            root.put("last_id", page.getLast());
        }
        return root;
    }

    private ObjectNode anthropicModel(String id) {
        // Sluice does not know when a model was released: the epoch says so
        return json.object().put("type", "model").put("id", id).put("display_name", id).put("created_at", "1970-01-01T00:00:00Z");
    }

    private ObjectNode modelObject(String id, String owner) {
        return json.object().put("id", id).put("object", "model").put("created", 0).put("owned_by", owner);
    }
}
