package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.runtime.resilience.breaker.BreakerState.CLOSED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.DEGRADED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.HALF_OPEN;
import static dev.sluice.runtime.resilience.breaker.BreakerState.OPEN;

import java.util.EnumSet;
import java.util.Set;

/**
 * The table of legal breaker moves (SPEC CB-1), one constant per move, as in Resilience4j's
 * {@code StateTransition}. The breaker checks every state change against it before installing or
 * persisting the new state: a move missing here is a bug in the breaker, never a runtime
 * condition, so it is refused loudly rather than written to the database. Staying in a state
 * (a count changing) is not a move and needs no entry.
 */
enum BreakerTransition {
    /** Failures reached the degradation threshold (CB-5). */
    CLOSED_TO_DEGRADED(CLOSED, DEGRADED),
    /** Failures reached the failure threshold (CB-2). */
    CLOSED_TO_OPEN(CLOSED, OPEN),
    /** Successes in a row, a successful connection test, or no failure for a long time (CB-5). */
    DEGRADED_TO_CLOSED(DEGRADED, CLOSED),
    /** Failures reached the failure threshold while degraded (CB-2). */
    DEGRADED_TO_OPEN(DEGRADED, OPEN),
    /** The open period passed (CB-4, CB-6). */
    OPEN_TO_HALF_OPEN(OPEN, HALF_OPEN),
    /** A success while half-open (BO-3). */
    HALF_OPEN_TO_CLOSED(HALF_OPEN, CLOSED),
    /** A counted failure while half-open: open again, one cycle longer (BO-3). */
    HALF_OPEN_TO_OPEN(HALF_OPEN, OPEN);

    private final BreakerState from;
    private final BreakerState to;

    BreakerTransition(BreakerState from, BreakerState to) {
        this.from = from;
        this.to = to;
    }

    /** @return the state the move leaves */
    BreakerState from() {
        return from;
    }

    /** @return the state the move enters */
    BreakerState to() {
        return to;
    }

    /**
     * The legal move between two different states.
     *
     * @param from the current state
     * @param to the next state
     * @return the move
     * @throws IllegalStateException when the table has no such move (same-state included: staying is no move)
     */
    static BreakerTransition between(BreakerState from, BreakerState to) {
        for (BreakerTransition t : values()) {
            if (t.from == from && t.to == to) {
                return t;
            }
        }
        throw new IllegalStateException("illegal breaker move " + from + " -> " + to);
    }

    /**
     * The states the table lets {@code from} move to.
     *
     * @param from a state
     * @return its legal next states
     */
    static Set<BreakerState> targets(BreakerState from) {
        Set<BreakerState> out = EnumSet.noneOf(BreakerState.class);
        for (BreakerTransition t : values()) {
            if (t.from == from) {
                out.add(t.to);
            }
        }
        return out;
    }
}
