package dev.sluice.runtime.http;

import dev.sluice.runtime.store.Secrets;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.store.Connection;
import io.helidon.http.Header;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.routing.ConnectionSelector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every routed client endpoint (OpenAI and Anthropic formats alike) answers the same way:
 * the API-5 routing headers, the stream headers, and the API-6 mapping of an unserved dispatch to
 * an {@link ApiException}. The wire envelope is chosen later, by the {@link ErrorMapper}.
 */
final class RoutedAnswers {

    private static final System.Logger LOG = System.getLogger(RoutedAnswers.class.getName());

    static final HeaderName CONNECTION_ID = HeaderNames.create("X-Sluice-Connection-Id");
    static final HeaderName PROVIDER = HeaderNames.create("X-Sluice-Provider");
    static final HeaderName MODEL = HeaderNames.create("X-Sluice-Model");

    static final Header SSE = HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    static final Header NO_CACHE = HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-cache");
    static final Header NO_BUFFERING = HeaderValues.create(HeaderNames.create("X-Accel-Buffering"), "no");

    private RoutedAnswers() {
    }

    /**
     * Client headers handed to executors in {@code ChatCall.clientHeaders()} (SEC-5): the runtime's
     * policy, kept here rather than in the SPI; never credentials or session headers.
     */
    static final java.util.Set<String> FORWARDABLE_CLIENT_HEADERS = java.util.Set.of("anthropic-beta", "anthropic-version");

    /** The client headers executors may forward on purpose (SEC-5 allow-list), names in lower case. */
    static Map<String, String> forwardableHeaders(ServerRequest req) {
        Map<String, String> out = null;
        for (String name : FORWARDABLE_CLIENT_HEADERS) {
            var value = req.headers().first(HeaderNames.create(name));
            if (value.isPresent()) {
                if (out == null) {
                    out = new HashMap<>(2);
                }
                out.put(name, value.get());
            }
        }
        return out == null ? Map.of() : out;
    }

    /** API-5: the connection, provider and model that served the request. */
    static void routedHeaders(ServerResponse res, Connection c, Route route) {
        // names from operators, plugins and upstreams: written defensively, never a 500 after a served answer
        SafeHeaders.set(res, CONNECTION_ID, c.id());
        SafeHeaders.set(res, PROVIDER, route.provider().id());
        SafeHeaders.set(res, MODEL, route.upstreamModel());
    }

    /**
     * API-5 and the headers a combo executor added to the answer (issue 34).
     *
     * @param res the response
     * @param served what served
     */
    static void routedHeaders(ServerResponse res, Outcome.Served served) {
        routedHeaders(res, served.connection(), served.route());
        served.headers().forEach((name, value) -> SafeHeaders.set(res, HeaderNames.create(name), value));
    }

    /** The headers of a {@code text/event-stream} answer that proxies must not buffer. */
    static void streamHeaders(ServerResponse res) {
        res.header(SSE);
        res.header(NO_CACHE);
        res.header(NO_BUFFERING);
    }

    /** API-6: a model that resolves to no provider. */
    static ApiException modelNotFound(String model) {
        return new ApiException(404, "invalid_request_error", "model_not_found",
                "The model '" + model + "' does not exist or is not routable: use provider/model with a provider that has a"
                        + " connection (see GET /v1/models).", "model", Map.of());
    }

    /**
     * The served outcome, or the client's error for any other (thrown; the {@link ErrorMapper}
     * renders it in the path's protocol).
     *
     * @param outcome what the pipeline produced
     * @return the served outcome; the caller closes it once the answer is written
     */
    static Outcome.Served served(Outcome outcome) {
        return switch (outcome) {
            case Outcome.Served s -> s;
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.TOOL_LIMIT ->
                    throw new ApiException(400, "invalid_request_error", "too_many_tools", "The request has more tools than the"
                            + " upstream serving '" + u.model() + "' takes (" + u.detail() + "; learned from its earlier refusal, OF-2):"
                            + " send fewer tools or use a combo whose other targets take them.", "tools", Map.of());
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.LEASE_FENCE_STALE -> throw LeaseErrors.fenceStale();
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.UNTRANSLATABLE ->
                    throw ApiException.badRequest("input", "No connection serving '" + u.model() + "' passes the request through,"
                            + " and it cannot be translated.");
            // issue 34: the 400 an upstream would give, without calling one
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.CONTEXT_LENGTH_EXCEEDED ->
                    throw new ApiException(400, "invalid_request_error", "context_length_exceeded", "The request (" + u.detail()
                            + ") does not fit the context window of any target of '" + u.model() + "': shorten the messages or"
                            + " lower max_tokens.", "messages", Map.of());
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.HELD_BY_STRATEGY ->
                    throw new ApiException(400, "invalid_request_error", "combo_targets_held_back", "The strategy of '" + u.model()
                            + "' holds back every target for this request (" + u.detail() + ").", "model", Map.of());
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.MODEL_NOT_ALLOWED ->
                    throw new ApiException(403, "permission_error", "model_not_allowed", "This API key may not use the model '"
                            + u.model() + "': ask the operator to add it to the key's allowedModels.", "model", Map.of());
            case Outcome.Unroutable u when u.why() == Outcome.Unroutable.Why.NO_EMBEDDINGS ->
                    throw ApiException.badRequest("model", "Provider '" + u.detail() + "' does not serve embeddings.");
            case Outcome.Unroutable u -> throw modelNotFound(u.model());
            case Outcome.Unserved u when u.combo() != null -> throw comboFailure(u, u.combo());
            case Outcome.Unserved u -> throw failure(u, u.route());
        };
    }

    /** Maps an unserved dispatch to the API-6 error. */
    static ApiException failure(Outcome.Unserved result, Route route) {
        String target = route.provider().id() + "/" + route.upstreamModel();
        return switch (result) {
            // API-6: a provider without a connection this key may use is not routable at all
            case Outcome.NoConnection n when n.excluded().isEmpty() -> new ApiException(404, "invalid_request_error",
                    "model_not_found", "The model '" + route.requested() + "' is not routable: provider '" + route.provider().id()
                            + "' has no enabled connection this key may use.", "model", Map.of());
            // CO-5: connections exist, but none can run and no timer will change that
            case Outcome.NoConnection n -> new ApiException(404, "invalid_request_error", "no_executable_targets",
                    "[" + target + "] no connection can run this request: " + n.excluded().size() + " connection(s) of provider '"
                            + route.provider().id() + "' are in a terminal state (banned, expired or credits exhausted; see"
                            + " GET /api/resilience/cooldowns).", "model", Map.of(), Map.of("diagnostics", diagnostics(n.excluded())));
            case Outcome.CoolingDown c -> {
                LOG.log(System.Logger.Level.WARNING, "[" + target + "] every connection excluded before dispatch — " + reasons(c.excluded()));
                yield new ApiException(503, "server_error", "all_targets_cooling_down",
                        "[" + target + "] every connection is held back by a resilience timer (" + reasons(c.excluded()) + "); retry after "
                                + seconds(c.retryAfterMs()) + " s.",
                        null, Map.of("Retry-After", String.valueOf(seconds(c.retryAfterMs()))),
                        Map.of("diagnostics", diagnostics(c.excluded())));
            }
            case Outcome.Failed f -> {
                // a status a client cannot take (1xx-3xx, 600+) is the gateway's own 502
                int status = f.verdict().status() >= 400 && f.verdict().status() <= 599 ? f.verdict().status() : 502;
                Map<String, String> headers = new HashMap<>();
                // API-5: a routed failure names the connection that answered last, like a success does
                headers.put(CONNECTION_ID.defaultCase(), f.connection().id());
                headers.put(PROVIDER.defaultCase(), route.provider().id());
                headers.put(MODEL.defaultCase(), SafeHeaders.safe(route.upstreamModel()));
                // RS-3: a restated error tells the client its rule's window, not the internal cooldown
                Long retryAfter = f.clientRetryAfterMs() != null ? f.clientRetryAfterMs() : f.verdict().retryAfterMs();
                if (retryAfter != null && (status == 429 || status == 503)) {
                    headers.put("Retry-After", String.valueOf(seconds(retryAfter)));
                }
                String code = f.failure().clientCode() != null ? f.failure().clientCode() : f.verdict().reason().wireName();
                yield new ApiException(status, typeFor(status), code, "[" + target + "] " + Secrets.scrub(f.failure().describe(), f.connection())
                        + (f.attempts() > 1 ? " (after " + f.attempts() + " attempts)" : ""), null, headers);
            }
            case Outcome.Refused t -> throttled(t, target);
            case Outcome.Unroutable u -> modelNotFound(u.model());
        };
    }

    /** §12, §14: the local queues refused the request; nothing was sent upstream. */
    private static ApiException throttled(Outcome.Refused t, String target) {
        String connection = t.connection().id();
        int status = switch (t.refusal()) {
            // OmniRoute's statuses: a full queue and a cap's timeout are the client's rate limit,
            // a queue wait that ran out is the gateway's overload, a departed client is nginx's 499
            case RATE_LIMIT_QUEUE_FULL, SEMAPHORE_QUEUE_FULL, SEMAPHORE_TIMEOUT -> 429;
            case RATE_LIMIT_QUEUE_TIMEOUT -> 503;
            case CLIENT_DISCONNECTED -> 499;
        };
        String why = switch (t.refusal()) {
            case RATE_LIMIT_QUEUE_FULL -> "the request queue of connection " + connection + " is full (requestQueue.maxQueueDepth; counted over every instance in shared mode)";
            case SEMAPHORE_QUEUE_FULL -> "the concurrency queue of connection " + connection + " is full (requestQueue.maxQueueDepth)";
            case RATE_LIMIT_QUEUE_TIMEOUT -> "the request waited in the queue of connection " + connection
                    + " longer than requestQueue.maxWaitMs" + (t.retryAfterMs() > 0 ? " allows (the queue is paused by the upstream)" : "");
            case SEMAPHORE_TIMEOUT -> "the request waited for a concurrency permit of connection " + connection
                    + " (maxConcurrent / modelConcurrency) longer than requestQueue.maxWaitMs";
            case CLIENT_DISCONNECTED -> "the client disconnected while the request waited in the queue of connection " + connection;
        };
        Map<String, String> headers = new HashMap<>();
        headers.put(CONNECTION_ID.defaultCase(), connection);
        if (t.retryAfterMs() > 0) {
            headers.put("Retry-After", String.valueOf(seconds(t.retryAfterMs())));
        }
        return new ApiException(status, typeFor(status), t.refusal().name(), "[" + target + "] " + why + "; nothing was sent upstream.",
                null, headers);
    }

    /** CO-5: {@code {excluded: [{target, provider, model, connectionId, reason, secondsLeft}]}}. */
    static Map<String, Object> diagnostics(List<ConnectionSelector.Excluded> excluded) {
        List<Map<String, Object>> list = new ArrayList<>(excluded.size());
        for (ConnectionSelector.Excluded x : excluded) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", x.candidate().provider() + "/" + x.candidate().model());
            m.put("provider", x.candidate().provider());
            m.put("model", x.candidate().model());
            m.put("connectionId", x.candidate().connection().id());
            m.put("reason", x.exclusion().reason().wireName());
            m.put("secondsLeft", x.exclusion().reason().timer() ? seconds(x.exclusion().remainingMs()) : 0);
            list.add(m);
        }
        return Map.of("excluded", list);
    }

    /** "unavailable 2 (3 s), circuit_open 1 (30 s)": each mechanism with its count and its soonest end. */
    private static String reasons(List<ConnectionSelector.Excluded> excluded) {
        Map<String, long[]> by = new LinkedHashMap<>();
        for (ConnectionSelector.Excluded x : excluded) {
            long[] agg = by.computeIfAbsent(x.exclusion().reason().wireName(), k -> new long[] {0, Long.MAX_VALUE});
            agg[0]++;
            agg[1] = Math.min(agg[1], x.exclusion().remainingMs());
        }
        StringBuilder sb = new StringBuilder();
        by.forEach((reason, agg) -> sb.append(sb.isEmpty() ? "" : ", ").append(reason).append(' ').append(agg[0])
                .append(agg[1] > 0 ? " (" + seconds(agg[1]) + " s)" : ""));
        return sb.toString();
    }

    /**
     * The answer to a combo request that no target served (CO-5): every target held back by a
     * timer → 503 {@code all_targets_cooling_down}; nothing runnable → 404
     * {@code no_executable_targets}; otherwise the last target's failure, as for a single model.
     */
    static ApiException comboFailure(Outcome.Unserved result, Outcome.ComboTrail outcome) {
        Combo combo = outcome.combo();
        if (outcome.held() == Outcome.Held.SKIPPED) {
            // CO-4: quota, auth or not found on every target: no hint, waiting would not help
            return new ApiException(503, "server_error", "ALL_TARGETS_SKIPPED", "[combo " + combo.name()
                    + "] every target is locked for a reason that does not pass by itself soon (quota, auth or not found).",
                    null, Map.of(), Map.of("diagnostics", diagnostics(excludedOf(result))));
        }
        if (outcome.held() == Outcome.Held.RATE_LIMITED && result instanceof Outcome.CoolingDown c) {
            // CO-4: short transient cooldowns beyond what the combo may wait for
            return new ApiException(429, "rate_limit_error", "rate_limit_exceeded", "[combo " + combo.name()
                    + "] every target is in a short cooldown; retry after " + seconds(c.retryAfterMs()) + " s.",
                    null, Map.of("Retry-After", String.valueOf(seconds(c.retryAfterMs()))),
                    Map.of("retry_after", seconds(c.retryAfterMs()), "reset_at",
                            java.time.Instant.ofEpochMilli(outcome.decidedAt() + c.retryAfterMs()).toString(), "diagnostics", diagnostics(c.excluded())));
        }
        Route lastRoute = result.route();
        if (result instanceof Outcome.Failed f) {
            ApiException e = failure(f, lastRoute);
            String retryAfter = e.headers().get("Retry-After");
            if (e.status() == 429 && retryAfter != null) {
                // CO-4: a combo's 429 says in its body when to come back, too
                long s = Long.parseLong(retryAfter);
                return new ApiException(e.status(), e.type(), e.code(), e.getMessage(), e.param(), e.headers(), Map.of("retry_after", s,
                        "reset_at", java.time.Instant.ofEpochMilli(outcome.decidedAt() + s * 1000).toString()));
            }
            return e;
        }
        return switch (result) {
            case Outcome.NoConnection n -> new ApiException(404, "invalid_request_error", "no_executable_targets",
                    "[combo " + combo.name() + "] no target can run this request: none of its " + combo.targets().size()
                            + " target(s) resolves to a usable connection"
                            + (n.excluded().isEmpty() ? "" : " (" + reasons(n.excluded()) + ")") + ".",
                    "model", Map.of(), Map.of("diagnostics", diagnostics(n.excluded())));
            case Outcome.CoolingDown c -> {
                LOG.log(System.Logger.Level.WARNING, "[combo " + combo.name() + "] every target excluded before dispatch — "
                        + reasons(c.excluded()));
                yield new ApiException(503, "server_error", "all_targets_cooling_down",
                        "[combo " + combo.name() + "] every target is held back by a resilience timer (" + reasons(c.excluded())
                                + "); retry after " + seconds(c.retryAfterMs()) + " s.",
                        null, Map.of("Retry-After", String.valueOf(seconds(c.retryAfterMs()))),
                        Map.of("diagnostics", diagnostics(c.excluded())));
            }
            default -> failure(result, lastRoute);
        };
    }

    private static List<ConnectionSelector.Excluded> excludedOf(Outcome r) {
        return switch (r) {
            case Outcome.CoolingDown c -> c.excluded();
            case Outcome.NoConnection n -> n.excluded();
            default -> List.of();
        };
    }

    private static long seconds(long ms) {
        return Math.max(1, (ms + 999) / 1000);
    }

    /** The OpenAI error type of a status. */
    static String typeFor(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 429 -> "rate_limit_error";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
    }
}
