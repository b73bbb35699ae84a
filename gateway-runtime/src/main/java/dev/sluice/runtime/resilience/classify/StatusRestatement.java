package dev.sluice.runtime.resilience.classify;

import dev.sluice.api.rules.RestatementRule;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Upstream status restatement (SPEC §16.1, RS-1…RS-4): some gateways answer a temporary quota
 * exhaustion with a status that means "permanent" (agentrouter: {@code 403 用户额度不足}).
 * Plugins contribute rules per provider; the first rule whose status and text markers match, and
 * none of whose exclude markers does, restates the status before anything classifies the error,
 * so fallback, aggregation and the client all see the retryable nature. Errors inside a 200 SSE
 * stream are not covered (they never become an {@link UpstreamError}).
 */
public final class StatusRestatement {

    /** Characters of the error read for markers. */
    static final int MAX_SCANNED_CHARS = 16_384;

    private final Map<String, List<RestatementRule>> byProvider;

    /**
     * Creates the registry.
     *
     * @param rules every contributed rule, in contribution order (the first match wins)
     */
    public StatusRestatement(List<RestatementRule> rules) {
        Map<String, List<RestatementRule>> m = new HashMap<>();
        for (RestatementRule r : rules) {
            m.computeIfAbsent(r.provider().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(r);
        }
        m.replaceAll((k, v) -> List.copyOf(v));
        byProvider = Map.copyOf(m);
    }

    /**
     * A failure after restatement.
     *
     * @param failure the failure the rest of the gateway sees (restated or the original)
     * @param rule the rule that restated it, or null
     * @param clientRetryAfterMs what the client is told in {@code Retry-After} (RS-3): the
     *     upstream's own header hint when it sent one, else the rule's default; null when not restated
     */
    public record Result(UpstreamFailure failure, RestatementRule rule, Long clientRetryAfterMs) {
    }

    /**
     * Restates a failure when a rule of its provider matches.
     *
     * @param provider the provider id
     * @param failure the failure as the executor reported it
     * @param nowMillis the current time (for an HTTP-date {@code Retry-After})
     * @return the result; the same failure with no rule when nothing matches
     */
    public Result apply(String provider, UpstreamFailure failure, long nowMillis) {
        List<RestatementRule> rules = byProvider.get(provider.toLowerCase(Locale.ROOT));
        if (rules == null || !(failure instanceof UpstreamError e)) {
            return new Result(failure, null, null);
        }
        String text = null;
        for (RestatementRule r : rules) {
            if (!r.fromStatuses().contains(e.status())) {
                continue;
            }
            if (text == null) {
                text = text(e);
            }
            if (anyIn(text, r.textMarkers()) && !anyIn(text, r.excludeMarkers())) {
                UpstreamError restated = new UpstreamError(new ResponseHead(r.toStatus(), e.head().headers()), e.body(), e.errorCode(),
                        e.errorType(), e.message(), e.retryHint());
                Long upstreamHint = RetryHints.fromHeaders(e.head(), nowMillis).filter(ms -> ms > 0).orElse(null);
                return new Result(restated, r, upstreamHint != null ? upstreamHint : r.defaultRetryAfterMs());
            }
        }
        return new Result(failure, null, null);
    }

    private static String text(UpstreamError e) {
        String body = e.body().length() > MAX_SCANNED_CHARS ? e.body().substring(0, MAX_SCANNED_CHARS) : e.body();
        return ((e.message() == null ? "" : e.message()) + " " + body).toLowerCase(Locale.ROOT);
    }

    private static boolean anyIn(String text, List<String> markers) {
        for (String m : markers) {
            if (text.contains(m.toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }
}
