package dev.sluice.runtime.combo.routing;

import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;

/**
 * Dispatches one target of a combo: a whole walk over its provider's connections — routing's
 * {@link dev.sluice.runtime.routing.Walk}, or a flow's step that sends a request of its own
 * through it.
 */
@FunctionalInterface
public interface TargetDispatch {
    /**
     * Dispatches.
     *
     * @param route the target's route
     * @param caller the caller, narrowed to the target's pinned connection
     * @return the outcome
     */
    Outcome dispatch(Route route, Caller caller);
}
