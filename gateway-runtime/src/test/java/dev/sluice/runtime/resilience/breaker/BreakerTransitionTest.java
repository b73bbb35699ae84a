package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.runtime.resilience.breaker.BreakerState.CLOSED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.DEGRADED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.HALF_OPEN;
import static dev.sluice.runtime.resilience.breaker.BreakerState.OPEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The table of legal breaker moves (SPEC CB-1) answers every pair of states. */
class BreakerTransitionTest {

    @Test
    void everyLegalMoveIsInTheTable_CB1() {
        assertThat(BreakerTransition.between(CLOSED, DEGRADED)).isEqualTo(BreakerTransition.CLOSED_TO_DEGRADED);
        assertThat(BreakerTransition.between(CLOSED, OPEN)).isEqualTo(BreakerTransition.CLOSED_TO_OPEN);
        assertThat(BreakerTransition.between(DEGRADED, CLOSED)).isEqualTo(BreakerTransition.DEGRADED_TO_CLOSED);
        assertThat(BreakerTransition.between(DEGRADED, OPEN)).isEqualTo(BreakerTransition.DEGRADED_TO_OPEN);
        assertThat(BreakerTransition.between(OPEN, HALF_OPEN)).isEqualTo(BreakerTransition.OPEN_TO_HALF_OPEN);
        assertThat(BreakerTransition.between(HALF_OPEN, CLOSED)).isEqualTo(BreakerTransition.HALF_OPEN_TO_CLOSED);
        assertThat(BreakerTransition.between(HALF_OPEN, OPEN)).isEqualTo(BreakerTransition.HALF_OPEN_TO_OPEN);
        assertThat(BreakerTransition.values()).hasSize(7);
    }

    @Test
    void anIllegalMoveIsRefused_CB1() {
        // An open breaker closes only through its half-open probe; nothing enters HALF_OPEN but OPEN.
        assertThatThrownBy(() -> BreakerTransition.between(OPEN, CLOSED)).isInstanceOf(IllegalStateException.class)
                .hasMessage("illegal breaker move OPEN -> CLOSED");
        assertThatThrownBy(() -> BreakerTransition.between(OPEN, DEGRADED)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> BreakerTransition.between(CLOSED, HALF_OPEN)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> BreakerTransition.between(DEGRADED, HALF_OPEN)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> BreakerTransition.between(HALF_OPEN, DEGRADED)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> BreakerTransition.between(CLOSED, CLOSED))
                .as("staying is no move").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theStatesNextMovesAreReadFromTheTable_CB1() {
        for (BreakerState from : BreakerState.values()) {
            for (BreakerState to : BreakerState.values()) {
                boolean inTable = false;
                for (BreakerTransition t : BreakerTransition.values()) {
                    inTable |= t.from() == from && t.to() == to;
                }
                assertThat(from.canMoveTo(to)).as(from + " -> " + to).isEqualTo(inTable);
            }
        }
    }
}
