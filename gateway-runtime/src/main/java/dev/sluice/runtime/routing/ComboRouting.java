package dev.sluice.runtime.routing;

/**
 * Routing of requests whose model names a combo (SPEC §13), as the {@link RequestRouter} sees
 * it; the combo router implements it beside the combos.
 */
public interface ComboRouting {

    /**
     * Runs a request through the combo a model names.
     *
     * @param model the model the client named
     * @param caller the caller
     * @param dispatch dispatches one target of the combo
     * @return the outcome, or null when the model names no combo
     */
    Outcome route(String model, Caller caller, TargetDispatch dispatch);

    /**
     * Runs a request through the combo a model names, with the request for strategies that read
     * it (issue 34: its prompt prefix, its size). The default ignores the request.
     *
     * @param model the model the client named
     * @param caller the caller
     * @param request the client's request in canonical form, or null when there is none
     * @param dispatch dispatches one target of the combo
     * @return the outcome, or null when the model names no combo
     */
    default Outcome route(String model, Caller caller, dev.sluice.api.chat.ChatRequest request, TargetDispatch dispatch) {
        return route(model, caller, dispatch);
    }

    /**
     * Runs a request through the combo a model names, for combos whose strategy is an executor
     * above the router (issue 34: {@code context-relay}, {@code pipeline}, {@code fusion}) that sends
     * requests of its own. The default ignores {@code sub}.
     *
     * @param model the model the client named
     * @param caller the caller
     * @param request the client's request in canonical form, or null when there is none
     * @param dispatch dispatches one target of the combo with the client's request
     * @param sub the requests an executor may make of its own, or null when the client's request
     *     cannot be rewritten (a body only passthrough can carry)
     * @return the outcome, or null when the model names no combo
     */
    default Outcome route(String model, Caller caller, dev.sluice.api.chat.ChatRequest request, TargetDispatch dispatch,
            SubRequests sub) {
        return route(model, caller, request, dispatch);
    }

    /**
     * The requests a combo executor makes beside the client's own (issue 34), through the same
     * dispatch as the client's: the same attempt loop, stream gate and attempt log rows, under the
     * client's request id.
     */
    interface SubRequests {
        /**
         * Dispatches one target with a request of the executor's own (a pipeline step, a panel
         * member's or the judge's request, a shortened conversation).
         *
         * @param request the request in canonical form
         * @param route the target's route
         * @param caller the caller, narrowed to the target's pinned connection
         * @return the outcome
         */
        Outcome dispatch(dev.sluice.api.chat.ChatRequest request, Route route, Caller caller);

        /**
         * Routes a request of the executor's own as a client's would be (its model a
         * {@code provider/model}, an alias or a combo), e.g. a summary.
         *
         * @param request the request in canonical form
         * @param caller the caller
         * @return the outcome
         */
        Outcome route(dev.sluice.api.chat.ChatRequest request, Caller caller);
    }

    /** Dispatches one target of a combo: a whole walk over its provider's connections. */
    @FunctionalInterface
    interface TargetDispatch {
        /**
         * Dispatches.
         *
         * @param route the target's route
         * @param caller the caller, narrowed to the target's pinned connection
         * @return the outcome
         */
        Outcome dispatch(Route route, Caller caller);
    }
}
