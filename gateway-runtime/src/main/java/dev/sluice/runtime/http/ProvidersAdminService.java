package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.discovery.ModelDiscovery;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code /api/providers}: provider connections CRUD (SPEC §3, AD-1), and each connection's model
 * discovery (issue 32): started in the background on creation and by {@code POST /{id}/test},
 * shown as {@code modelDiscovery} by {@code GET /{id}}. No admin answer waits for an upstream.
 */
final class ProvidersAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final ConnectionStore store;
    private final ConnectionJson mapping;

    private final java.util.function.Consumer<String> deleted;
    /** A connection's egress route may have changed or gone: unused route clients are let go (§16.3). */
    private final Runnable routesChanged;
    private final ModelDiscovery discovery;

    ProvidersAdminService(Json json, Authenticator auth, ConnectionStore store, ConnectionJson mapping,
            java.util.function.Consumer<String> deleted, Runnable routesChanged, ModelDiscovery discovery) {
        this.discovery = discovery;
        this.deleted = deleted;
        this.routesChanged = routesChanged;
        this.json = json;
        this.auth = auth;
        this.store = store;
        this.mapping = mapping;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list)
                .post("/", this::create)
                .get("/{id}", this::get)
                .post("/{id}/test", this::test)
                .put("/{id}", this::replace)
                .patch("/{id}", this::patch)
                .delete("/{id}", this::delete);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        for (Connection c : store.list()) {
            data.add(mapping.render(c));
        }
        json.send(res, 200, root);
    }

    private void create(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        NewConnection fields = mapping.parse(json.objectBody(req), null);
        Connection created = store.create(fields);
        discovery.discover(created.id());
        json.send(res, 201, mapping.render(created));
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        Connection c = existing(req);
        ObjectNode o = mapping.render(c);
        o.set("modelDiscovery", discoveryView(c.id()));
        json.send(res, 200, o);
    }

    /**
     * Starts a model discovery of the connection and answers at once ({@code 202}) with the last
     * one's state: {@code started} is false when the connection's provider does not discover its
     * models, the connection is disabled, or discovery is off.
     */
    private void test(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        Connection c = existing(req);
        boolean started = discovery.discover(c.id());
        ObjectNode o = json.object().put("id", c.id());
        o.put("modelDiscoveryStarted", started);
        o.set("modelDiscovery", discoveryView(c.id()));
        json.send(res, 202, o);
    }

    /** {@code {at, count, error}} of the last discovery, or null when none ran. */
    private com.fasterxml.jackson.databind.JsonNode discoveryView(String id) {
        return discovery.status(id).<com.fasterxml.jackson.databind.JsonNode>map(d -> {
            ObjectNode v = json.object().put("at", d.at()).put("count", d.ids().size());
            if (d.error() == null) {
                v.putNull("error");
            } else {
                v.put("error", d.error());
            }
            return v;
        }).orElse(json.mapper().nullNode());
    }

    private void replace(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        Connection c = existing(req);
        NewConnection fields = mapping.parse(json.objectBody(req), c);
        // RQ-9: PUT never changes rateLimitProtection; POST /api/rate-limits is its only write path
        Connection updated = store.update(c.id(), fields, c.rateLimitProtection()).orElseThrow(() -> notFound(c.id()));
        routesChanged.run();
        rediscover(c, updated);
        json.send(res, 200, mapping.render(updated));
    }

    private void patch(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        Connection c = existing(req);
        NewConnection fields = mapping.merge(json.objectBody(req), c);
        Connection updated = store.update(c.id(), fields, c.rateLimitProtection()).orElseThrow(() -> notFound(c.id()));
        routesChanged.run();
        rediscover(c, updated);
        json.send(res, 200, mapping.render(updated));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        if (!store.delete(id)) {
            throw notFound(id);
        }
        deleted.accept(id);
        routesChanged.run();
        json.send(res, 200, json.object().put("id", id).put("deleted", true));
    }

    /** A new base URL, credential, route or an enabling may change what the upstream lists: asked again. */
    private void rediscover(Connection before, Connection after) {
        if (!java.util.Objects.equals(before.baseUrl(), after.baseUrl()) || !java.util.Objects.equals(before.apiKey(), after.apiKey())
                || !java.util.Objects.equals(before.proxyUrl(), after.proxyUrl()) || !before.provider().equals(after.provider())
                || before.enabled() != after.enabled()) {
            discovery.discover(after.id());
        }
    }

    private Connection existing(ServerRequest req) {
        String id = req.path().pathParameters().get("id");
        return store.find(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return ApiException.notFound("not_found", "Provider connection '" + id + "' does not exist.");
    }
}
