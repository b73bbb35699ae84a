package dev.sluice.runtime.resilience.breaker;

import java.util.Set;

/**
 * The states of a provider circuit breaker (SPEC CB-1), as the admin API and the database name
 * them. The legal moves between them are listed once, in {@link BreakerTransition}; the data and
 * reactions of each state are its record in {@link BreakerStatus}. An operator reset is not a
 * move: it forgets the breaker, which is then {@code CLOSED} with no history.
 */
public enum BreakerState {
    /** Normal: traffic flows, failures are counted. */
    CLOSED,
    /** Traffic still flows; the failure count is elevated and watched. */
    DEGRADED,
    /** The provider host is skipped until the open period passes. */
    OPEN,
    /** The open period passed: one probe request may go upstream. */
    HALF_OPEN;

    /**
     * The states this one may move to, read from {@link BreakerTransition}.
     *
     * @return the legal next states
     */
    public Set<BreakerState> next() {
        return BreakerTransition.targets(this);
    }

    /**
     * Whether a move to {@code target} is legal.
     *
     * @param target the next state
     * @return true when legal
     */
    public boolean canMoveTo(BreakerState target) {
        return next().contains(target);
    }
}
