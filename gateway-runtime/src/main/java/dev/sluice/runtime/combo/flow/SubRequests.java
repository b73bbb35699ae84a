package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.routing.Walk;

/**
 * The requests a combo executor makes beside the client's own (issue 34): a target dispatched
 * with a request of the executor's own goes down the client's walk (the same attempt loop, stream
 * gate and attempt log rows, under the client's request id); a request routed as a client's
 * (a summary) goes to the entry point's {@link Reroute}.
 */
record SubRequests(Walk walk, Reroute reroute) {

    /** One target, with a request of the executor's own (a step, a panel member's or the judge's, a shortened conversation). */
    Outcome dispatch(ChatRequest request, Route route, Caller caller) {
        return walk.dispatch(request, route, caller);
    }

    /** A request of the executor's own, routed as a client's would be. */
    Outcome route(ChatRequest request, Caller caller) {
        return reroute.route(request, caller);
    }
}
