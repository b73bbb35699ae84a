package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The session-limit reset of a Claude subscription account (SPEC CL-7): on the usage wall, ask
 * {@code GET {base}/api/oauth/usage?at_wall=1&skip_spend=1} whether a reset is offered
 * ({@code juniper_tide}: {@code arm: "reset"}, {@code available: true}) and claim it with
 * {@code POST {base}/api/organizations/{orgUUID}/reset_rate_limits} {@code {"program":
 * "juniper_tide"}}. {@code reset} / {@code not_limited} → retry at full speed; {@code already_used}
 * / {@code not_offered} → not again before {@code next_available_at} (default a week); any failure
 * → not again for 15 minutes. {@code {base}} is the connection's base URL (tests point it at a
 * mock). State in memory per connection.
 */
final class LimitReset {

    static final String PROGRAM = "juniper_tide";
    static final Duration STATUS_TIMEOUT = Duration.ofSeconds(5);
    static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(25);
    static final long FAILURE_WAIT_MS = 15 * 60_000L;
    static final long DEFAULT_NEXT_MS = 7L * 24 * 3_600_000;
    static final int MAX_CONNECTIONS = 10_000;
    private static final int MAX_BODY = 64 * 1024;

    private static final System.Logger LOG = System.getLogger(LimitReset.class.getName());

    /**
     * One connection's reset state.
     *
     * @param notBefore no reset is tried before this (epoch ms)
     * @param lastResult the last result ({@code reset}, {@code not_limited}, {@code already_used},
     *     {@code not_offered}, {@code no_organization}, {@code error}, …)
     * @param lastAt when
     */
    record State(long notBefore, String lastResult, long lastAt) {
    }

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final AnthropicHeaders headers;
    private final Map<String, State> states = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, State> eldest) {
            return size() > MAX_CONNECTIONS;
        }
    };

    LimitReset(UpstreamHttp http, InstantSource clock, AnthropicHeaders headers) {
        this.http = http;
        this.clock = clock;
        this.headers = headers;
    }

    /**
     * Tries the reset for a connection at its usage wall.
     *
     * @param target the connection
     * @return true when the limit was reset (or was not limited): retry at full speed
     */
    boolean tryReset(UpstreamTarget target) {
        String id = target.connectionId();
        long now = clock.millis();
        State s;
        synchronized (this) {
            s = states.get(id);
        }
        if (s != null && s.notBefore() > now) {
            return false;
        }
        String base = base(target.baseUrl());
        Map<String, Object> tide;
        try {
            Object usage = call(target, "GET", URI.create(base + "/api/oauth/usage?at_wall=1&skip_spend=1"), null, STATUS_TIMEOUT);
            tide = Json.object(usage, PROGRAM);
        } catch (IOException | RuntimeException e) {
            return record(id, now + FAILURE_WAIT_MS, "error", "usage status failed: " + e.getMessage());
        }
        if (tide == null || !"reset".equals(Json.string(tide, "arm")) || !Boolean.TRUE.equals(Json.get(tide, "available"))) {
            return record(id, next(tide, now), "not_offered", "no reset offered");
        }
        Object org = target.providerSpecificData().get("organizationUUID");
        if (!(org instanceof String orgId) || orgId.isBlank()) {
            return record(id, now + FAILURE_WAIT_MS, "no_organization", "providerSpecificData.organizationUUID is not set");
        }
        Object claim;
        try {
            claim = call(target, "POST", URI.create(base + "/api/organizations/" + URLEncoder.encode(orgId.strip(), StandardCharsets.UTF_8)
                    + "/reset_rate_limits"), "{\"program\":\"" + PROGRAM + "\"}", CLAIM_TIMEOUT);
        } catch (IOException | RuntimeException e) {
            return record(id, now + FAILURE_WAIT_MS, "error", "reset claim failed: " + e.getMessage());
        }
        String result = Json.string(claim, "result");
        if ("reset".equals(result) || "not_limited".equals(result)) {
            record(id, 0, result, "limit reset claimed");
            return true;
        }
        if ("already_used".equals(result) || "not_offered".equals(result)) {
            return record(id, next(claim instanceof Map<?, ?> ? Json.mutableObject((Map<?, ?>) claim) : null, now), result,
                    "reset not available");
        }
        return record(id, now + FAILURE_WAIT_MS, result == null ? "error" : result, "reset claim answered " + result);
    }

    private boolean record(String id, long notBefore, String result, String why) {
        synchronized (this) {
            states.put(id, new State(notBefore, result, clock.millis()));
        }
        LOG.log(System.Logger.Level.INFO, "claude connection " + id + ": session-limit reset " + result + " (" + why + ")");
        return false;
    }

    private long next(Map<String, Object> block, long now) {
        String at = block == null ? null : Json.string(block, "next_available_at");
        long parsed = UnifiedLimits.instant(at);
        return parsed > now ? parsed : now + DEFAULT_NEXT_MS;
    }

    private Object call(UpstreamTarget target, String method, URI uri, String body, Duration timeout) throws IOException {
        Map<String, String> h = headers.build(target, false, Map.of());
        try (UpstreamResponse r = target.httpOr(http).send(new UpstreamRequest(method, uri, h,
                body == null ? null : body.getBytes(StandardCharsets.UTF_8), timeout))) {
            String text = r.bodyText(MAX_BODY);
            if (r.head().status() < 200 || r.head().status() > 299) {
                throw new IOException("HTTP " + r.head().status());
            }
            return Json.parse(text);
        }
    }

    /** The base URL without a trailing {@code /} or {@code /v1}: the account API lives at the host root. */
    static String base(String baseUrl) {
        String b = baseUrl;
        while (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        return b.endsWith("/v1") ? b.substring(0, b.length() - 3) : b;
    }

    /** What operators see in the connection's row. */
    synchronized Map<String, Object> describe(String connectionId) {
        State s = states.get(connectionId);
        Map<String, Object> out = new LinkedHashMap<>();
        if (s != null) {
            out.put("limitResetLastResult", s.lastResult());
            out.put("limitResetLastAt", s.lastAt());
            if (s.notBefore() > clock.millis()) {
                out.put("limitResetNotBefore", s.notBefore());
            }
        }
        return out;
    }
}
