package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.store.Database;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** {@code GET /health/live} and {@code GET /health/ready}; no authentication. */
final class HealthService implements HttpService {

    private final Json json;
    private final Database db;

    HealthService(Json json, Database db) {
        this.json = json;
        this.db = db;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/live", this::live).get("/ready", this::ready);
    }

    private void live(ServerRequest req, ServerResponse res) {
        ObjectNode body = json.object().put("status", "UP");
        json.send(res, 200, body);
    }

    private void ready(ServerRequest req, ServerResponse res) {
        boolean dbUp = db.ping();
        ObjectNode body = json.object().put("status", dbUp ? "UP" : "DOWN");
        body.putObject("checks").put("database", dbUp ? "UP" : "DOWN");
        json.send(res, dbUp ? 200 : 503, body);
    }
}
