package dev.sluice.runtime.routing;

import dev.sluice.api.chat.ChatRequest;
import java.util.Map;

/**
 * One request's way down through routing: each {@link #dispatch(Route, Caller)} walks one
 * route's connections with the request's call (a plain model's one route, or a combo's targets
 * one by one), under the request's id, attempt tally and stream gate. Whoever decides the routes —
 * the entry point, a combo — holds the walk and calls down into it; routing never calls back up.
 */
public final class Walk {

    private final RouteWalks walks;
    private final ClientRequest request;
    private final String requestId;
    private final AttemptTally tally;
    private final StreamGate gate;

    Walk(RouteWalks walks, ClientRequest request, String requestId, AttemptTally tally, StreamGate gate) {
        this.walks = walks;
        this.request = request;
        this.requestId = requestId;
        this.tally = tally;
        this.gate = gate;
    }

    /**
     * Walks one route's connections with the client's request.
     *
     * @param route the route
     * @param caller the caller (a combo target's: narrowed to its pinned connection)
     * @return the outcome; a {@link Outcome.Served} holds its admission until the caller closes it
     */
    public Outcome dispatch(Route route, Caller caller) {
        return walks.dispatch(request, route, caller, requestId, tally, gate);
    }

    /**
     * Walks one route's connections with a request of a combo executor's own (issue 34: a pipeline
     * step, a panel member's or the judge's request, a shortened conversation), sent with the
     * client's headers, under the same id, tally and gate.
     *
     * @param sub the request in canonical form
     * @param route the route
     * @param caller the caller
     * @return the outcome
     * @throws IllegalStateException when the client's request cannot be rewritten
     */
    public Outcome dispatch(ChatRequest sub, Route route, Caller caller) {
        return walks.dispatch(rewritten(sub), route, caller, requestId, tally, gate);
    }

    /**
     * The client's request in canonical form, for the combo strategies that read it.
     *
     * @return the request, or null for embeddings
     */
    public ChatRequest canonical() {
        return switch (request) {
            case ClientRequest.Chat c -> c.request();
            case ClientRequest.Dialect d -> d.request();
            case ClientRequest.Embeddings e -> null;
        };
    }

    /**
     * Whether a combo executor may send requests of its own in place of the client's: not for
     * embeddings, nor for a body only passthrough can carry (nothing to rewrite).
     *
     * @return whether {@link #rewritten} may be called
     */
    public boolean rewritable() {
        return headers() != null;
    }

    /**
     * A request of a combo executor's own as a client request, with the client's headers.
     *
     * @param sub the request in canonical form
     * @return the client request
     * @throws IllegalStateException when the client's request cannot be rewritten
     */
    public ClientRequest rewritten(ChatRequest sub) {
        Map<String, String> headers = headers();
        if (headers == null) {
            throw new IllegalStateException("this request cannot be rewritten");
        }
        return new ClientRequest.Chat(sub, headers);
    }

    private Map<String, String> headers() {
        return switch (request) {
            case ClientRequest.Chat c -> c.clientHeaders();
            case ClientRequest.Dialect d -> d.untranslatable() != null ? null : d.clientHeaders();
            case ClientRequest.Embeddings e -> null;
        };
    }
}
