package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.session.SessionPins;
import dev.sluice.runtime.session.Sessions;
import dev.sluice.runtime.store.LeaseRow;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.function.LongSupplier;

/**
 * {@code /api/sessions} (admin): the live session pins (SPEC SA-1; by the key's hash, never the
 * key) and the active exclusive leases (SL-2; with their connection, which clients never see),
 * and the admin's release of either.
 */
final class SessionsAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final Sessions sessions;
    private final LongSupplier ttlMs;

    SessionsAdminService(Json json, Authenticator auth, Sessions sessions, LongSupplier ttlMs) {
        this.json = json;
        this.auth = auth;
        this.sessions = sessions;
        this.ttlMs = ttlMs;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list)
                .delete("/pins", this::clearPins)
                .delete("/leases/{id}", this::releaseLease);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        root.put("sessionAffinityTtlMs", ttlMs.getAsLong());
        ArrayNode pins = root.putArray("pins");
        for (SessionPins.Pin p : sessions.pins().list()) {
            pins.addObject().put("session", p.sessionKey()).put("provider", p.provider()).put("connectionId", p.connectionId())
                    .put("createdAt", p.createdAt()).put("lastSeenAt", p.lastSeenAt());
        }
        ArrayNode leases = root.putArray("leases");
        for (LeaseRow r : sessions.leases().active()) {
            leases.add(lease(r));
        }
        json.send(res, 200, root);
    }

    private void clearPins(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String connection = req.query().first("connectionId").orElse(null);
        int n = sessions.pins().clear(connection);
        json.send(res, 200, json.object().put("removed", n));
    }

    private void releaseLease(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        LeaseRow ended = sessions.leases().adminRelease(id)
                .orElseThrow(() -> ApiException.notFound("not_found", "No active lease has id '" + id + "'."));
        json.send(res, 200, lease(ended));
    }

    private ObjectNode lease(LeaseRow r) {
        ObjectNode o = json.object().put("id", r.id()).put("keyId", r.keyId()).put("connectionId", r.connectionId())
                .put("model", r.model()).put("generation", r.generation()).put("state", r.state()).put("ttlMs", r.ttlMs())
                .put("createdAt", r.createdAt()).put("expiresAt", r.expiresAt());
        if (r.endReason() != null) {
            o.put("reason", r.endReason());
        }
        return o;
    }
}
