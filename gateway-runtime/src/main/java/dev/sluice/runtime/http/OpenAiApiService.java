package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.ModelListing;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.RequestRouter;
import dev.sluice.runtime.stream.Signal;
import dev.sluice.runtime.routing.Route;
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
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final Json json;
    private final Authenticator auth;
    private final OpenAiCodec codec;
    private final RequestRouter router;
    private final ModelListing models;

    OpenAiApiService(Json json, Authenticator auth, OpenAiCodec codec, RequestRouter router, ModelListing models) {
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.router = router;
        this.models = models;
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
                case Reply.Stream s -> relay(res, s, served, caller, requestId);
                default -> throw new IllegalStateException("a chat request served " + served.reply().getClass().getSimpleName());
            }
        }
    }

    /** Relays a stream chunk by chunk as {@code data:} events, watched (SPEC §15): see {@link StreamResponse}. */
    private void relay(ServerResponse res, Reply.Stream stream, Outcome.Served served, Caller caller, String requestId) {
        Route route = served.route();
        StreamResponse.send(res, served, caller, requestId, stream.prefix(), stream.rest(), Signal::of, stream.rules(), stream.startedNanos(),
                new StreamResponse.Wire<StreamChunk>() {
                    @Override
                    public byte[] frame(StreamChunk chunk) {
                        return chunk.kind() == FrameKind.HEARTBEAT ? KEEP_ALIVE : codec.writeChunkEvent(chunk);
                    }

                    @Override
                    public byte[] keepAlive() {
                        return KEEP_ALIVE;
                    }

                    @Override
                    public byte[] error(String code, String text, boolean watchdog) {
                        // OpenAI SDKs raise on an error event; after a watchdog's the stream also ends properly
                        byte[] error = streamError(route, code, text);
                        return watchdog ? concat(error, OpenAiCodec.DONE_EVENT) : error;
                    }

                    @Override
                    public byte[] end() {
                        return OpenAiCodec.DONE_EVENT;
                    }
                });
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private byte[] streamError(Route route, String code, String message) {
        ObjectNode root = json.object();
        ObjectNode err = root.putObject("error");
        err.put("message", message);
        err.put("type", "server_error");
        err.put("code", code);
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
        models.routable(caller).forEach((id, owner) -> data.add(modelObject(id, owner)));
        json.send(res, 200, root);
    }

    /** {@code GET /v1/models/{provider/model}} (the OpenAI SDKs' {@code models.retrieve}). */
    private void model(ServerRequest req, ServerResponse res) {
        Caller caller = auth.client(req);
        String id = req.path().pathParameters().get("id");
        String owner = models.owner(id, caller).orElseThrow(() -> new ApiException(404, "invalid_request_error", "model_not_found",
                "The model '" + id + "' does not exist or is not routable.", "model", Map.of()));
        json.send(res, 200, modelObject(id, owner));
    }

    private ObjectNode modelObject(String id, String owner) {
        return json.object().put("id", id).put("object", "model").put("created", 0).put("owned_by", owner);
    }
}
