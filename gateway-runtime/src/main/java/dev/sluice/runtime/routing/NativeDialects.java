package dev.sluice.runtime.routing;

import dev.sluice.api.PassthroughCall;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.runtime.openai.OpenAiCompatibleExecutor;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which connections turned out not to serve a dialect natively although their provider's
 * descriptor says they do: an OpenAI-compatible upstream behind the {@code openai} provider (a
 * local server, a reseller) that answers {@code POST /responses} with 404 or 405. Such an attempt
 * is sent again at once, translated through the canonical model, and the connection (at its base
 * URL) is translated from then on. A connection that opted in explicitly
 * ({@code responsesApi: true}) is never second-guessed. Bounded, least recently used first out.
 */
final class NativeDialects {

    private static final int MAX = 4096;

    private final Map<String, Boolean> unserved = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX;
        }
    });

    /** Whether this connection is known not to serve the dialect natively. */
    boolean unserved(String dialect, UpstreamTarget target) {
        return unserved.containsKey(key(dialect, target));
    }

    /**
     * Whether a failed passthrough attempt says the upstream does not serve the dialect at all (as
     * opposed to refusing this request): remembered when so.
     *
     * @param dialect the dialect
     * @param target the connection
     * @param failed the attempt's failure
     * @return true when the attempt should be translated instead
     */
    boolean learn(String dialect, UpstreamTarget target, Attempt.Failed failed) {
        boolean optedIn = Boolean.TRUE.equals(target.providerSpecificData().get(OpenAiCompatibleExecutor.RESPONSES_API));
        if (!PassthroughCall.OPENAI_RESPONSES.equals(dialect) || optedIn) {
            return false;
        }
        if (!(failed.failure() instanceof AttemptFailure.Upstream u) || !(u.failure() instanceof UpstreamError e)) {
            return false;
        }
        int status = e.head().status();
        String body = e.body();
        // a model the upstream does not know is a 404 on every endpoint: that is the request's, not the route's
        if ((status != 404 && status != 405) || body.contains("model_not_found") || body.contains("does not exist")) {
            return false;
        }
        unserved.put(key(dialect, target), Boolean.TRUE);
        return true;
    }

    private static String key(String dialect, UpstreamTarget target) {
        return dialect + '\u0000' + target.connectionId() + '\u0000' + target.baseUrl();
    }
}
