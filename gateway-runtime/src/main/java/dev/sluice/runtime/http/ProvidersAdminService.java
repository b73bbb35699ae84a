package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** {@code /api/providers}: provider connections CRUD (SPEC §3, AD-1). */
final class ProvidersAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final ConnectionStore store;
    private final ConnectionJson mapping;

    private final java.util.function.Consumer<String> deleted;
    /** A connection's egress route may have changed or gone: unused route clients are let go (§16.3). */
    private final Runnable routesChanged;

    ProvidersAdminService(Json json, Authenticator auth, ConnectionStore store, ConnectionJson mapping,
            java.util.function.Consumer<String> deleted, Runnable routesChanged) {
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
        json.send(res, 201, mapping.render(store.create(fields)));
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, mapping.render(existing(req)));
    }

    private void replace(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        Connection c = existing(req);
        NewConnection fields = mapping.parse(json.objectBody(req), c);
        // RQ-9: PUT never changes rateLimitProtection; POST /api/rate-limits is its only write path
        Connection updated = store.update(c.id(), fields, c.rateLimitProtection()).orElseThrow(() -> notFound(c.id()));
        routesChanged.run();
        json.send(res, 200, mapping.render(updated));
    }

    private void patch(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        Connection c = existing(req);
        NewConnection fields = mapping.merge(json.objectBody(req), c);
        Connection updated = store.update(c.id(), fields, c.rateLimitProtection()).orElseThrow(() -> notFound(c.id()));
        routesChanged.run();
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

    private Connection existing(ServerRequest req) {
        String id = req.path().pathParameters().get("id");
        return store.find(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return ApiException.notFound("not_found", "Provider connection '" + id + "' does not exist.");
    }
}
