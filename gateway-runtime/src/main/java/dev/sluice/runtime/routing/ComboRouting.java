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
