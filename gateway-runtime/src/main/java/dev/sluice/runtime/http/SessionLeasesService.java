package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.session.LeaseCandidates;
import dev.sluice.runtime.session.LeaseOwner;
import dev.sluice.runtime.session.Leases;
import dev.sluice.runtime.store.ApiKey;
import dev.sluice.runtime.store.LeaseRow;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /api/v1/session-leases} (SPEC SL-1, SL-2, SL-5): {@code acquire}, {@code renew},
 * {@code release} of an exclusive lease by a client key with scope {@code lease:exclusive} and a
 * non-empty {@code allowedConnections}. The owner token travels in {@code X-Sluice-Lease-Owner};
 * answers never name the connection or its credentials.
 */
final class SessionLeasesService implements HttpService {

    static final String SCOPE = "lease:exclusive";

    private final Json json;
    private final Authenticator auth;
    private final Leases leases;
    private final LeaseCandidates candidates;

    SessionLeasesService(Json json, Authenticator auth, Leases leases, LeaseCandidates candidates) {
        this.json = json;
        this.auth = auth;
        this.leases = leases;
        this.candidates = candidates;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/", this::post).options("/", (req, res) -> {
            res.header(HeaderNames.create("Access-Control-Allow-Headers"),
                    "Authorization, Content-Type, " + LeaseOwner.HEADER + ", " + LeaseOwner.GENERATION_HEADER);
            res.header(HeaderNames.create("Allow"), "POST, OPTIONS");
            res.status(204).send();
        });
    }

    private void post(ServerRequest req, ServerResponse res) {
        ApiKey key = auth.clientKey(req).orElse(null);
        if (key == null || !key.scopes().contains(SCOPE) || key.allowedConnections().isEmpty()) {
            throw new ApiException(403, "permission_error", "LEASE_SCOPE_REQUIRED", "Exclusive leases need a client key with scope '"
                    + SCOPE + "' and a non-empty allowedConnections.", null, Map.of());
        }
        String type = req.headers().contentType().map(t -> t.mediaType().text()).orElse("");
        if (!type.equalsIgnoreCase("application/json")) {
            throw new ApiException(415, "invalid_request_error", "LEASE_CONTENT_TYPE_REQUIRED",
                    "Send the lease request as Content-Type: application/json.", null, Map.of());
        }
        String owner = req.headers().first(HeaderNames.create(LeaseOwner.HEADER)).orElse(null);
        if (owner == null || owner.isBlank()) {
            throw LeaseErrors.ownerRequired();
        }
        if (!LeaseOwner.valid(owner.strip())) {
            throw LeaseErrors.ownerInvalid();
        }
        String ownerHash = LeaseOwner.hash(owner.strip());
        ObjectNode body = json.objectBody(req);
        String action = text(body, "action", true);
        Leases.Result result = switch (action) {
            case "acquire" -> leases.acquire(ownerHash, key.id(), Set.copyOf(key.allowedConnections()), model(body),
                    Leases.ttl(ttl(body)), candidates);
            case "renew" -> leases.renew(ownerHash, key.id(), generation(body), Leases.ttl(ttl(body)));
            case "release" -> leases.release(ownerHash, key.id(), generation(body), reason(body));
            default -> throw ApiException.badRequest("action", "'action' must be acquire, renew or release.");
        };
        switch (result) {
            case Leases.Held h -> json.send(res, 200, render(h.lease(), h.reused() ? "REUSED" : h.moved() ? "MOVED" : null));
            case Leases.Ended e -> json.send(res, 200, render(e.lease(), null));
            case Leases.Capacity c -> throw LeaseErrors.capacity(c);
            case Leases.Stale s -> throw LeaseErrors.stale(s.why());
            case Leases.Ineligible i -> throw i.pick().modelUnknown()
                    ? new ApiException(404, "invalid_request_error", "model_not_found", i.pick().detail(), "model", Map.of())
                    : new ApiException(503, "server_error", "no_eligible_connection", i.pick().detail(), "model", Map.of());
        }
    }

    /** The lease as its owner sees it: never the connection, the key or the owner. */
    private ObjectNode render(LeaseRow r, String outcome) {
        ObjectNode o = json.object();
        o.put("state", r.state());
        o.put("generation", r.generation());
        o.put("model", r.model());
        o.put("ttlMs", r.ttlMs());
        o.put("expiresAt", r.expiresAt());
        if (r.endReason() != null) {
            o.put("reason", r.endReason());
        }
        if (outcome != null) {
            o.put("outcome", outcome);
        }
        return o;
    }

    /** The lease's model, by the one rule every endpoint applies to a model name (issue 29). */
    private static String model(JsonNode body) {
        String model = text(body, "model", true);
        String problem = dev.sluice.runtime.openai.ModelNames.problem("model", body.get("model").asText());
        if (problem != null) {
            throw ApiException.badRequest("model", problem);
        }
        return model;
    }

    private static String text(JsonNode body, String field, boolean required) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            if (required) {
                throw ApiException.badRequest(field, "Missing required field '" + field + "'.");
            }
            return null;
        }
        if (!n.isTextual() || n.asText().isBlank() || n.asText().length() > 256) {
            throw ApiException.badRequest(field, "'" + field + "' must be a non-empty string of at most 256 characters.");
        }
        return n.asText().strip();
    }

    private static long generation(JsonNode body) {
        JsonNode n = body.get("generation");
        if (n == null || !n.canConvertToLong() || !n.isIntegralNumber() || n.asLong() < 1) {
            throw ApiException.badRequest("generation", "'generation' must be the lease generation (a positive integer).");
        }
        return n.asLong();
    }

    private static Long ttl(JsonNode body) {
        JsonNode n = body.get("ttlMs");
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0) {
            throw ApiException.badRequest("ttlMs", "'ttlMs' must be a whole number of milliseconds (clamped to 1000–1800000).");
        }
        return n.asLong();
    }

    private static String reason(JsonNode body) {
        String r = text(body, "reason", false);
        if (r == null) {
            return "CLIENT_CANCELLED";
        }
        if (!r.equals("CLIENT_CANCELLED") && !r.equals("OWNER_EXIT")) {
            throw ApiException.badRequest("reason", "'reason' must be CLIENT_CANCELLED or OWNER_EXIT.");
        }
        return r;
    }
}
