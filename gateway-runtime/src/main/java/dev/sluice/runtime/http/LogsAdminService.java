package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.runtime.store.ProxyLogWriter;
import dev.sluice.runtime.telemetry.RecentRequest;
import dev.sluice.runtime.telemetry.RequestHistory;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code GET /api/logs?status=&provider=&model=&key=&from=&to=&limit=} (issue 26): the recent
 * inference requests with their upstream attempts, newest first, and beyond the in-memory ring the
 * failed attempts {@code proxy_logs} keeps; what the dashboard's Logs page lists and opens.
 */
final class LogsAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final RequestHistory history;
    private final java.time.InstantSource clock;

    LogsAdminService(Json json, Authenticator auth, RequestHistory history, java.time.InstantSource clock) {
        this.json = json;
        this.auth = auth;
        this.history = history;
        this.clock = clock;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        long to = param(req, "to").map(v -> QueryTimes.parse(v, "to", true)).orElse(clock.millis() + 1);
        long from = param(req, "from").map(v -> QueryTimes.parse(v, "from", false))
                .orElse(to - ProxyLogWriter.RETENTION.toMillis());
        if (from > to) {
            throw ApiException.badRequest("from", "'from' must not be after 'to'.");
        }
        int[] status = param(req, "status").map(LogsAdminService::status).orElse(new int[] {0, RequestHistory.ANY_STATUS});
        int limit = param(req, "limit").map(LogsAdminService::limit).orElse(RequestHistory.DEFAULT_LIMIT);
        RequestHistory.Result result = history.query(new RequestHistory.Query(from, to, status[0], status[1],
                param(req, "provider").orElse(null), param(req, "model").orElse(null), param(req, "key").orElse(null), limit));

        ObjectNode root = json.object();
        root.put("from", Instant.ofEpochMilli(from).toString());
        root.put("to", Instant.ofEpochMilli(to).toString());
        root.put("limit", limit);
        root.put("more", result.more());
        root.put("ringCapacity", result.ringCapacity());
        ArrayNode list = root.putArray("requests");
        for (RequestHistory.Entry e : result.entries()) {
            write(list.addObject(), e);
        }
        json.send(res, 200, root);
    }

    private static void write(ObjectNode o, RequestHistory.Entry e) {
        RecentRequest r = e.request();
        o.put("requestId", r.requestId());
        o.put("time", Instant.ofEpochMilli(r.startedAtMs()).toString());
        o.put("timeMs", r.startedAtMs());
        o.put("source", e.source());
        o.put("keyId", r.keyId());
        o.put("api", r.api());
        o.put("requestedModel", r.requestedModel());
        o.put("provider", r.provider());
        o.put("connectionId", r.connectionId());
        o.put("model", r.model());
        o.put("status", r.status());
        if (r.latencyMs() < 0) {
            o.putNull("latencyMs");
        } else {
            o.put("latencyMs", r.latencyMs());
        }
        o.put("errorCode", r.errorCode());
        o.put("failure", r.failure());
        ArrayNode attempts = o.putArray("attempts");
        for (ProxyLogRow a : e.attempts()) {
            ObjectNode attempt = attempts.addObject();
            attempt
                    .put("time", Instant.ofEpochMilli(a.timestamp()).toString())
                    .put("connectionId", a.connectionId())
                    .put("provider", a.provider())
                    .put("model", a.model())
                    .put("status", a.status())
                    .put("latencyMs", a.latencyMs())
                    .put("errorType", a.errorType())
                    .put("egressIp", a.egressIp());
            ProxyLogRow.Effect effect = a.effect();
            if (effect == null) {
                attempt.putNull("effect");
            } else {
                ObjectNode eo = attempt.putObject("effect").put("kind", effect.kind()).put("reason", effect.reason());
                if (effect.untilMs() == null) {
                    eo.putNull("until").putNull("untilMs");
                } else {
                    eo.put("until", Instant.ofEpochMilli(effect.untilMs()).toString()).put("untilMs", effect.untilMs());
                }
            }
        }
    }

    /** A parameter's value; an empty one (a filter the page left at "all") is no filter. */
    private static Optional<String> param(ServerRequest req, String name) {
        return req.query().first(name).map(String::strip).filter(v -> !v.isEmpty());
    }

    /** {@code 2xx} (a class, 1xx–5xx) or an exact status 0–599 (0: no upstream answer). */
    private static int[] status(String v) {
        String s = v.toLowerCase(java.util.Locale.ROOT);
        if (s.length() == 3 && s.endsWith("xx") && s.charAt(0) >= '1' && s.charAt(0) <= '5') {
            int base = (s.charAt(0) - '0') * 100;
            return new int[] {base, base + 99};
        }
        try {
            int exact = Integer.parseInt(s);
            if (exact >= 0 && exact <= 599) {
                return new int[] {exact, exact};
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("status", "'status' must be a status class (2xx, 4xx, 5xx) or a status 0–599, got '" + v + "'.");
    }

    private static int limit(String v) {
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= RequestHistory.MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("limit", "'limit' must be 1–" + RequestHistory.MAX_LIMIT + ", got '" + v + "'.");
    }
}
