package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerView;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.engine.Resilience;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldownEntry;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import dev.sluice.runtime.stream.StreamCounters;
import java.time.InstantSource;
import java.util.Map;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The resilience views and controls (SPEC §3, AD-2): provider breakers, the cooldown manager
 * (CC-8), model lockouts (ML-5) and the overall health view. Every mechanism is shown on its own,
 * so an operator can tell which one held a request back and why.
 */
final class ResilienceAdminService {

    private final Json json;
    private final Authenticator auth;
    private final ConnectionStore connections;
    private final CircuitBreakers breakers;
    private final ConnectionCooldowns cooldowns;
    private final ModelLockouts lockouts;
    private final ConnectionGates gates;
    private final ProviderCooldowns providerCooldowns;
    private final InstantSource clock;

    private final StreamCounters streams;
    private final Deployment deployment;
    private final dev.sluice.runtime.session.Sessions sessions;
    /** What a connection's executor keeps about it (e.g. a provider's slower lane), for operators. */
    private final java.util.function.Function<Connection, Map<String, Object>> pluginState;

    ResilienceAdminService(Json json, Authenticator auth, ConnectionStore connections, Resilience mechanisms, ConnectionGates gates,
            InstantSource clock, StreamCounters streams,
            dev.sluice.runtime.session.Sessions sessions, java.util.function.Function<Connection, Map<String, Object>> pluginState,
            Deployment deployment) {
        this.deployment = deployment;
        this.pluginState = pluginState;
        this.sessions = sessions;
        this.streams = streams;
        this.gates = gates;
        this.json = json;
        this.auth = auth;
        this.connections = connections;
        this.breakers = mechanisms.breakers();
        this.cooldowns = mechanisms.cooldowns();
        this.lockouts = mechanisms.lockouts();
        this.providerCooldowns = mechanisms.providerCooldowns();
        this.clock = clock;
    }

    /** {@code /api/resilience/...} routes beside the settings tree at {@code /api/resilience}. */
    HttpService resilience() {
        return (HttpRules rules) -> rules
                .post("/reset", this::reset)
                .get("/cooldowns", this::listCooldowns)
                .post("/cooldowns", this::clearCooldowns)
                .get("/model-cooldowns", this::listLockouts)
                .delete("/model-cooldowns", this::deleteLockout);
    }

    /** {@code /api/monitoring/health}. */
    HttpService monitoring() {
        return (HttpRules rules) -> rules.get("/health", this::health);
    }

    private void health(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        long now = clock.millis();
        ObjectNode root = json.object();
        ArrayNode list = json.mapper().createArrayNode();
        Set<String> withBreaker = new TreeSet<>();
        boolean degraded = false;
        for (BreakerView v : breakers.views()) {
            withBreaker.add(v.key().provider());
            degraded |= v.state() != BreakerState.CLOSED;
            list.add(breaker(v));
        }
        // providers whose breaker never saw traffic are CLOSED with nothing counted
        Set<String> providers = new TreeSet<>();
        int cooling = 0;
        int terminal = 0;
        for (Connection c : connections.list()) {
            providers.add(c.provider());
            if (ConnectionCooldowns.isTerminal(c.state().testStatus())) {
                terminal++;
            } else if (c.state().rateLimitedUntil() != null && c.state().rateLimitedUntil() > now) {
                cooling++;
            }
        }
        for (String p : providers) {
            if (!withBreaker.contains(p)) {
                list.addObject().put("provider", p).putNull("host").put("state", BreakerState.CLOSED.name()).put("failureCount", 0)
                        .putNull("lastFailureAt").put("retryAfterMs", 0);
            }
        }
        int locked = lockouts.activeCount();
        degraded |= cooling > 0 || terminal > 0 || locked > 0;
        root.put("status", degraded ? "degraded" : "healthy");
        if (!deployment.describe(root)) {
            // NF-6: a store other instances share is out of reach (same key: its place in the document is kept)
            root.put("status", "degraded");
        }
        root.set("providerBreakers", list);
        root.putObject("connections").put("cooling", cooling).put("terminal", terminal).put("total", connections.list().size());
        root.put("lockouts", locked);
        // §15: how streams ended since start-up, by reason (readiness timeouts and early EOFs never reached the client)
        ObjectNode streamCounts = root.putObject("streams");
        streams.snapshot().forEach(streamCounts::put);
        // §10: live session pins and active exclusive leases (the list: GET /api/sessions)
        root.putObject("sessions").put("pins", sessions.pins().list().size()).put("activeLeases", sessions.leases().activeCount());
        // RQ-10: request windows upstreams announced as running low, paced until their reset
        ArrayNode learned = root.putArray("learnedLimits");
        gates.learnedAll().forEach((id, p) -> learned.addObject().put("connectionId", id).put("limit", p.limit())
                .put("remaining", p.remaining()).put("resetAt", p.untilMs()).put("spacingMs", p.spacingMs()));
        ArrayNode gate = root.putArray("providerCooldowns");
        for (ProviderCooldownEntry e : providerCooldowns.entries()) {
            ObjectNode o = gate.addObject().put("provider", e.provider());
            if (e.connectionId() == null) {
                o.putNull("connectionId");
            } else {
                o.put("connectionId", e.connectionId());
            }
            o.put("failures", e.failures()).put("remainingMs", e.remainingMs());
        }
        json.send(res, 200, root);
    }

    private ObjectNode breaker(BreakerView v) {
        ObjectNode o = json.object();
        o.put("provider", v.key().provider());
        o.put("host", v.key().host());
        o.put("state", v.state().name());
        o.put("failureCount", v.failureCount());
        if (v.lastFailureAt() == null) {
            o.putNull("lastFailureAt");
        } else {
            o.put("lastFailureAt", v.lastFailureAt());
        }
        o.put("retryAfterMs", v.retryAfterMs());
        o.put("openCycles", v.openCycles());
        if (v.lastFailureKind() == null) {
            o.putNull("lastFailureKind");
        } else {
            o.put("lastFailureKind", v.lastFailureKind());
        }
        return o;
    }

    private void reset(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = optionalBody(req);
        String provider = optionalString(body, "provider");
        int n = provider == null ? breakers.reset() : breakers.reset(provider);
        if (provider == null) {
            providerCooldowns.clear();
        }
        // NF-6: every other instance resets its own breakers (and windows) too
        deployment.shared().events().publish(new ClusterEvent.BreakersReset(provider));
        ObjectNode out = json.object();
        if (provider == null) {
            out.putNull("provider");
        } else {
            out.put("provider", provider);
        }
        out.put("reset", n);
        json.send(res, 200, out);
    }

    private void listCooldowns(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String provider = req.query().first("provider").orElse(null);
        long now = clock.millis();
        List<ModelLockout> active = lockouts.active();
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        for (Connection c : connections.list()) {
            if (provider != null && !provider.equals(c.provider())) {
                continue;
            }
            ConnectionState s = c.state();
            boolean cooling = s.rateLimitedUntil() != null && s.rateLimitedUntil() > now;
            ObjectNode o = data.addObject();
            o.put("connectionId", c.id());
            o.put("provider", c.provider());
            o.put("name", c.name());
            // lazy recovery (CC-7): an expired cooldown is shown as what selection sees, active
            o.put("testStatus", "unavailable".equals(s.testStatus()) && !cooling ? "active" : s.testStatus());
            if (cooling) {
                o.put("rateLimitedUntil", s.rateLimitedUntil());
            } else {
                o.putNull("rateLimitedUntil");
            }
            o.put("remainingMs", cooling ? s.rateLimitedUntil() - now : 0);
            o.put("backoffLevel", s.backoffLevel());
            nullable(o, "lastErrorType", s.lastErrorType());
            nullable(o, "errorCode", s.errorCode());
            o.put("disableCooling", c.disableCooling());
            Map<String, Object> plugin = pluginState.apply(c);
            if (!plugin.isEmpty()) {
                o.set("pluginState", json.mapper().valueToTree(plugin));
            }
            ArrayNode locks = o.putArray("modelLockouts");
            for (ModelLockout l : active) {
                if (l.connectionId().equals(c.id())) {
                    locks.addObject().put("model", l.model()).put("reason", l.reason().wireName()).put("scope", l.scope().wireName())
                            .put("expiresAt", l.expiresAt()).put("remainingMs", Math.max(0, l.expiresAt() - now));
                }
            }
        }
        json.send(res, 200, root);
    }

    private void clearCooldowns(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        JsonNode all = body.get("all");
        JsonNode ids = body.get("connectionIds");
        if (all != null && !all.isNull() && !all.isBoolean()) {
            throw ApiException.badRequest("all", "'all' must be a boolean.");
        }
        boolean everything = all != null && all.asBoolean();
        JsonNode reactivateField = body.get("reactivate");
        if (reactivateField != null && !reactivateField.isNull() && !reactivateField.isBoolean()) {
            throw ApiException.badRequest("reactivate", "'reactivate' must be a boolean.");
        }
        // issue 27: the operator's way back for a terminal connection (credit refilled) without new credentials
        boolean reactivate = reactivateField != null && reactivateField.asBoolean();
        String provider = optionalString(body, "provider");
        Set<String> targets = new LinkedHashSet<>();
        List<String> notFound = new ArrayList<>();
        if (everything) {
            for (Connection c : connections.list()) {
                if (provider == null || provider.equals(c.provider())) {
                    targets.add(c.id());
                }
            }
        } else {
            if (ids == null || ids.isNull()) {
                throw ApiException.badRequest("connectionIds", "Send {\"connectionIds\": [...]} or {\"all\": true, \"provider\"?: ...}.");
            }
            if (!ids.isArray()) {
                throw ApiException.badRequest("connectionIds", "'connectionIds' must be an array of connection ids.");
            }
            for (JsonNode id : ids) {
                if (!id.isTextual() || id.asText().isBlank()) {
                    throw ApiException.badRequest("connectionIds", "'connectionIds' must be an array of non-empty strings.");
                }
                if (connections.find(id.asText()).isEmpty()) {
                    notFound.add(id.asText());
                } else {
                    targets.add(id.asText());
                }
            }
        }
        ObjectNode out = json.object();
        ArrayNode cleared = out.putArray("cleared");
        ArrayNode unchanged = out.putArray("unchanged");
        ArrayNode skipped = out.putArray("skippedTerminal");
        ArrayNode reactivated = out.putArray("reactivated");
        int lockoutsCleared = 0;
        for (String id : targets) {
            switch (cooldowns.clear(id)) {
                case CLEARED -> cleared.add(id);
                case UNCHANGED -> unchanged.add(id);
                case SKIPPED_TERMINAL -> (reactivate && cooldowns.reactivate(id) ? reactivated : skipped).add(id);
            }
            lockoutsCleared += lockouts.clearConnection(id);
            providerCooldowns.clearConnection(id);
            // NF-6: the lockouts and provider-cooldown entries other instances recorded go too
            deployment.shared().events().publish(new ClusterEvent.ConnectionCleared(id));
        }
        out.put("lockoutsCleared", lockoutsCleared);
        ArrayNode nf = out.putArray("notFound");
        notFound.forEach(nf::add);
        json.send(res, 200, out);
    }

    private void listLockouts(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        long now = clock.millis();
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        for (ModelLockout l : lockouts.active()) {
            data.addObject().put("provider", l.provider()).put("connectionId", l.connectionId()).put("model", l.model())
                    .put("scope", l.scope().wireName()).put("reason", l.reason().wireName()).put("expiresAt", l.expiresAt())
                    .put("remainingMs", Math.max(0, l.expiresAt() - now)).put("failureCount", l.failureCount());
        }
        json.send(res, 200, root);
    }

    private void deleteLockout(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        String provider = requiredString(body, "provider");
        String connection = optionalString(body, "connection");
        if (connection == null) {
            connection = optionalString(body, "connectionId");
        }
        if (connection == null) {
            throw ApiException.badRequest("connection", "'connection' (the connection id) is required.");
        }
        String model = requiredString(body, "model");
        // NF-6: the instance that recorded the lock may be another one: it clears its own too
        deployment.shared().events().publish(new ClusterEvent.ModelCleared(provider, connection, model));
        if (!lockouts.clear(provider, connection, model)) {
            throw ApiException.notFound("not_found", "No active model lockout for " + provider + " / " + connection + " / " + model + ".");
        }
        json.send(res, 200, json.object().put("provider", provider).put("connectionId", connection).put("model", model)
                .put("deleted", true));
    }

    private ObjectNode optionalBody(ServerRequest req) {
        return req.content().hasEntity() ? json.objectBody(req) : json.object();
    }

    private static String optionalString(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a non-empty string.");
        }
        return n.asText();
    }

    private static String requiredString(ObjectNode body, String field) {
        String s = optionalString(body, field);
        if (s == null) {
            throw ApiException.badRequest(field, "'" + field + "' is required.");
        }
        return s;
    }

    private static void nullable(ObjectNode o, String field, String value) {
        if (value == null) {
            o.putNull(field);
        } else {
            o.put(field, value);
        }
    }
}
