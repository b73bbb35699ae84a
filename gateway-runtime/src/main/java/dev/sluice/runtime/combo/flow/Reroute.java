package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;

/**
 * Routes a request a combo executor makes of its own as a client's would be (its model a
 * {@code provider/model}, an alias or a combo), e.g. the context relay's summary: a request of
 * its own, given by the entry point that runs the combo.
 */
@FunctionalInterface
public interface Reroute {
    /**
     * Routes the request.
     *
     * @param request the request in canonical form
     * @param caller the caller
     * @return the outcome
     */
    Outcome route(ChatRequest request, Caller caller);
}
