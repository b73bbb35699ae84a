package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.runtime.resilience.breaker.BreakerState.CLOSED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.DEGRADED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.HALF_OPEN;
import static dev.sluice.runtime.resilience.breaker.BreakerState.OPEN;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The table of legal breaker moves (SPEC CB-1). */
class BreakerStateTest {

    @Test
    void legalMovesAreExactlyTheSpecsOnes_CB1() {
        assertThat(CLOSED.next()).containsExactlyInAnyOrder(DEGRADED, OPEN);
        assertThat(DEGRADED.next()).containsExactlyInAnyOrder(CLOSED, OPEN);
        assertThat(OPEN.next()).containsExactly(HALF_OPEN);
        assertThat(HALF_OPEN.next()).containsExactlyInAnyOrder(CLOSED, OPEN);
        assertThat(OPEN.canMoveTo(CLOSED)).isFalse();
        assertThat(CLOSED.canMoveTo(HALF_OPEN)).isFalse();
        assertThat(HALF_OPEN.canMoveTo(OPEN)).isTrue();
    }
}
