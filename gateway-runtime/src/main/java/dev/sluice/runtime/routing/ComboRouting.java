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
