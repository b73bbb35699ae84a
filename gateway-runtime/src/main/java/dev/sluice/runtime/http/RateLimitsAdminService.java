package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Set;

/**
 * {@code /api/rate-limits} (SPEC §14 RQ-8, RQ-9): the only write path of a connection's
 * {@code rateLimitProtection}, and a view of each connection's queue.
 */
final class RateLimitsAdminService implements HttpService {

    private static final Set<String> KEYS = Set.of("connectionId", "enabled");

    private final Json json;
    private final Authenticator auth;
    private final ConnectionStore connections;
    private final AdmissionPolicy policy;
    private final ConnectionGates gates;

    RateLimitsAdminService(Json json, Authenticator auth, ConnectionStore connections, AdmissionPolicy policy, ConnectionGates gates) {
        this.json = json;
        this.auth = auth;
        this.connections = connections;
        this.policy = policy;
        this.gates = gates;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list).post("/", this::set);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        for (Connection c : connections.list()) {
            data.add(render(c));
        }
        json.send(res, 200, root);
    }

    /** RQ-9: {@code {connectionId, enabled}}. */
    private void set(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        body.fieldNames().forEachRemaining(k -> {
            if (!KEYS.contains(k)) {
                throw ApiException.badRequest(k, "unknown field '" + k + "' (known: connectionId, enabled).");
            }
        });
        JsonNode id = body.get("connectionId");
        if (id == null || !id.isTextual() || id.asText().isBlank()) {
            throw ApiException.badRequest("connectionId", "'connectionId' is required: the id of a provider connection.");
        }
        JsonNode enabled = body.get("enabled");
        if (enabled == null || !enabled.isBoolean()) {
            throw ApiException.badRequest("enabled", "'enabled' is required and must be true or false.");
        }
        Connection updated = connections.updateRateLimitProtection(id.asText(), enabled.booleanValue())
                .orElseThrow(() -> ApiException.notFound("not_found", "Provider connection '" + id.asText() + "' does not exist."));
        json.send(res, 200, render(updated));
    }

    private ObjectNode render(Connection c) {
        ConnectionGates.Snapshot s = gates.snapshot(c.id());
        ObjectNode o = json.object()
                .put("connectionId", c.id())
                .put("provider", c.provider())
                .put("name", c.name())
                .put("enabled", c.enabled())
                .put("rateLimitProtection", c.rateLimitProtection())
                // RQ-7, RQ-8: explicit protection, or auto-enable for an active API key
                .put("protected", policy.protects(c))
                .put("running", s.running())
                .put("queued", s.queued());
        long paused = gates.pausedUntil(c.id());
        if (paused > 0) {
            o.put("pausedUntil", paused);
        } else {
            o.putNull("pausedUntil");
        }
        // RQ-4: where the provider's limits are per model, a pause holds one model
        ObjectNode models = o.putObject("pausedModels");
        gates.pausedModels(c.id()).forEach(models::put);
        return o;
    }
}
