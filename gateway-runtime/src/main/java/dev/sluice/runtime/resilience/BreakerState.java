package dev.sluice.runtime.resilience;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a provider circuit breaker (SPEC CB-1) and the legal moves between them. An
 * operator reset is not a move: it forgets the breaker, which is then {@code CLOSED} with no
 * history.
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
     * The states this one may move to.
     *
     * @return the legal next states
     */
    public Set<BreakerState> next() {
        return switch (this) {
            case CLOSED -> EnumSet.of(DEGRADED, OPEN);
            case DEGRADED -> EnumSet.of(CLOSED, OPEN);
            case OPEN -> EnumSet.of(HALF_OPEN);
            case HALF_OPEN -> EnumSet.of(CLOSED, OPEN);
        };
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
