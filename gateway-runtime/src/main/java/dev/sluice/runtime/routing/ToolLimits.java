package dev.sluice.runtime.routing;

import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.classify.ToolLimitText;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SPEC OF-2: the tool limits upstreams announced by refusing a request with too many tools, per
 * provider and model. A request with more tools than a route's known limit is not sent there (a
 * combo goes on to its next target); the limit is learned from the refusal's text (the number it
 * states, else one less than was sent) and kept for the process's lifetime (limits are properties
 * of a model, not of a moment). Thread-safe.
 */
final class ToolLimits {

    private final Map<String, Integer> limits = new ConcurrentHashMap<>();

    private static String key(Route route) {
        return route.provider().id() + "\u0000" + route.upstreamModel();
    }

    /**
     * The known limit of a route.
     *
     * @param route the route
     * @return the most tools it takes, or -1 when unknown
     */
    int limit(Route route) {
        // issue 26: no limit learnt (the common case) costs no key built per request
        return limits.isEmpty() ? -1 : limits.getOrDefault(key(route), -1);
    }

    /**
     * Learns from an outcome: a failure whose upstream text says too many tools sets the route's limit.
     *
     * @param outcome the route's outcome
     * @param toolsSent how many tools the request had
     */
    void learn(Outcome outcome, int toolsSent) {
        if (toolsSent < 1 || !(outcome instanceof Outcome.Failed f) || !(f.failure() instanceof AttemptFailure.Upstream u)
                || !(u.failure() instanceof UpstreamError e)) {
            return;
        }
        int limit = ToolLimitText.limit(e.describe() + " " + (e.body() == null ? "" : e.body()), toolsSent);
        if (limit >= 0) {
            limits.merge(key(f.route()), limit, Math::min);
        }
    }
}
