package dev.sluice.runtime.entry;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.flow.ComboFlows;
import dev.sluice.runtime.routing.AttemptTally;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.routing.RouteWalks;
import dev.sluice.runtime.routing.Walk;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The pipeline's one entry point: takes a parsed client request and its caller, decides how it is
 * served — through the combo its model names, or the one route of a plain model (passthrough to
 * an upstream that speaks the client's dialect, or translated through the canonical model, is
 * decided per connection further down) — and returns the one {@link Outcome}. HTTP services
 * parse, call {@link #route}, and render.
 */
public final class RequestRouter {

    private final ModelResolver resolver;
    private final RouteWalks walks;
    private final ComboFlows combos;
    private final UnaryOperator<String> aliases;

    /**
     * Creates the router.
     *
     * @param resolver resolves a plain model to a route
     * @param walks walks a route's connections (routing's way down)
     * @param combos finds and runs the combo a model names
     * @param aliases the operators' model aliases (API-1): a client's model → the model routed instead
     */
    public RequestRouter(ModelResolver resolver, RouteWalks walks, ComboFlows combos, UnaryOperator<String> aliases) {
        this.resolver = resolver;
        this.walks = walks;
        this.combos = combos;
        this.aliases = aliases;
    }

    /**
     * Routes a request. A {@link Outcome.Served} outcome holds its admission: the caller closes it
     * once the answer is written.
     *
     * @param request the parsed request
     * @param caller the caller
     * @param requestId the request id
     * @return the outcome
     */
    public Outcome route(ClientRequest request, Caller caller, String requestId) {
        return route(request, caller, requestId, AttemptTally.NONE);
    }

    /**
     * Routes a request, counting each of its upstream attempts on {@code tally} as it is recorded
     * (issue 35 §4: the count travels with the request, not back through a lookup by its id).
     *
     * @param request the parsed request
     * @param caller the caller
     * @param requestId the request id
     * @param tally counts the request's attempts (the request's telemetry record)
     * @return the outcome; a {@link Outcome.Served} holds its admission until the caller closes it
     */
    public Outcome route(ClientRequest request, Caller caller, String requestId, AttemptTally tally) {
        // API-1: an operator's alias names the model (or combo) routed instead
        String model = aliases.apply(request.model());
        // issue 33: a key limited to some models names one of them, or its alias does
        if (!caller.models().all() && !caller.models().allows(request.model()) && !caller.models().allows(model)) {
            return new Outcome.Unroutable(request.model(), Outcome.Unroutable.Why.MODEL_NOT_ALLOWED, null);
        }
        Walk walk = walks.begin(request, caller, requestId, tally);
        if (!(request instanceof ClientRequest.Embeddings) && Combo.mayName(model)) {
            Optional<Combo> combo = combos.find(model, caller);
            if (combo.isPresent()) {
                // CO-1: the combo's targets, in its strategy's order, each a whole walk of its provider's connections;
                // a summary the context relay asks for is a request of its own, routed from here like a client's
                return combos.run(combo.get(), caller, walk,
                        (ChatRequest sub, Caller asker) -> route(walk.rewritten(sub), asker, requestId, tally));
            }
        }
        Optional<Route> route = resolver.resolve(model);
        if (route.isEmpty()) {
            // SH-2: a refused plugin's provider answers why, instead of "no such model"
            resolver.refusal(model).ifPresent(e -> {
                throw e;
            });
            return new Outcome.Unroutable(request.model(), Outcome.Unroutable.Why.MODEL_NOT_FOUND, null);
        }
        if (request instanceof ClientRequest.Embeddings && !route.get().provider().executor().supportsEmbeddings()) {
            return new Outcome.Unroutable(request.model(), Outcome.Unroutable.Why.NO_EMBEDDINGS, route.get().provider().id());
        }
        return walk.dispatch(route.get(), caller);
    }
}
