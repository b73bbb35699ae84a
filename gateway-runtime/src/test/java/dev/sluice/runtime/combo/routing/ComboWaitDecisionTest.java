package dev.sluice.runtime.combo.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings.ComboCooldownWait;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.Outcome;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The combo's wait / no-wait decision and its answer when nothing can run (SPEC CO-3, CO-4, CO-5). */
class ComboWaitDecisionTest {

    private static final ComboCooldownWait DEFAULTS = ComboCooldownWait.DEFAULT;

    @ParameterizedTest(name = "enabled={0} transient={1} waits={2} waited={3} → {4}")
    @CsvSource({
        "true, 2000, 0, 0, true",          // a short transient cooldown: wait
        "true, 89950, 0, 0, true",         // wait = 90 000 = maxWaitMs
        "true, 89951, 0, 0, false",        // wait > maxWaitMs
        "true, -1, 0, 0, false",           // nothing waitable (quota, auth, not found, breaker)
        "false, 2000, 0, 0, false",        // disabled
        "true, 2000, 5, 0, false",         // maxAttempts reached
        "true, 2000, 4, 297950, true",     // budget left = 2 050 = wait
        "true, 2000, 4, 297951, false"})   // budget left < wait
    void waitsOnlyWithinEveryBound_CO4(boolean enabled, long transientMs, int waits, long waited, boolean expected) {
        ComboCooldownWait w = new ComboCooldownWait(enabled, DEFAULTS.maxWaitMs(), DEFAULTS.maxAttempts(), DEFAULTS.budgetMs());
        assertThat(ComboWait.mayWait(w, transientMs, waits, waited)).isEqualTo(expected);
    }

    private static ConnectionSelector.Excluded held(Exclusion.Reason reason, long ms, FailureReason cause) {
        Connection c = new Connection("c", 1, "p", "n", ProviderClass.APIKEY, "k", null, null, 1, true, null, null, false, false, null,
                null, null, ConnectionState.ACTIVE, 0, 0);
        return new ConnectionSelector.Excluded(new Candidate("p", ProviderClass.APIKEY, c, new BreakerKey("p", "h:1"), "m", null),
                new Exclusion(reason, ms, cause));
    }

    @Test
    void theEarliestWaitableHoldIsWhatAComboWaitsFor_CO3() {
        List<ConnectionSelector.Excluded> x = List.of(
                held(Exclusion.Reason.UNAVAILABLE, 9_000, FailureReason.RATE_LIMIT_EXCEEDED),
                held(Exclusion.Reason.MODEL_LOCKOUT, 4_000, FailureReason.CONCURRENCY_LIMITED),
                held(Exclusion.Reason.UNAVAILABLE, 1_000, FailureReason.QUOTA_EXHAUSTED),
                held(Exclusion.Reason.CIRCUIT_OPEN, 500, null));
        assertThat(ComboWait.soonestTransient(x)).isEqualTo(4_000);
        assertThat(ComboWait.soonestTransient(List.of(held(Exclusion.Reason.UNAVAILABLE, 1_000, FailureReason.AUTH_ERROR)))).isEqualTo(-1);
    }

    @Test
    void aFullyHeldComboAnswersByWhatHoldsIt_CO4_CO5() {
        var rate = held(Exclusion.Reason.UNAVAILABLE, 2_000, FailureReason.RATE_LIMIT_EXCEEDED);
        var quota = held(Exclusion.Reason.UNAVAILABLE, 3_600_000, FailureReason.QUOTA_EXHAUSTED);
        var notFound = held(Exclusion.Reason.MODEL_LOCKOUT, 120_000, FailureReason.NOT_FOUND);
        var breaker = held(Exclusion.Reason.CIRCUIT_OPEN, 30_000, null);
        var terminal = held(Exclusion.Reason.TERMINAL, 0, null);
        var unknownCause = held(Exclusion.Reason.UNAVAILABLE, 3_000, null);
        assertThat(ComboWait.classify(List.of(rate, rate))).isEqualTo(Outcome.Held.RATE_LIMITED);
        assertThat(ComboWait.classify(List.of(rate, unknownCause))).isEqualTo(Outcome.Held.RATE_LIMITED);
        assertThat(ComboWait.classify(List.of(quota, notFound))).isEqualTo(Outcome.Held.SKIPPED);
        assertThat(ComboWait.classify(List.of(quota, notFound, terminal))).isEqualTo(Outcome.Held.SKIPPED);
        assertThat(ComboWait.classify(List.of(rate, breaker))).isEqualTo(Outcome.Held.NONE);
        assertThat(ComboWait.classify(List.of(rate, quota))).isEqualTo(Outcome.Held.NONE);
        assertThat(ComboWait.classify(List.of(terminal))).isEqualTo(Outcome.Held.NONE);
        assertThat(ComboWait.soonestTransient(List.of(unknownCause))).isEqualTo(3_000);
    }

    @Test
    void aWaitIsSleptInSlicesAskingTheClientBeforeEach_CO3() throws InterruptedException {
        List<Long> slept = new java.util.ArrayList<>();
        int[] asked = {0};
        assertThat(ComboWait.waitOut(2050, () -> ++asked[0] > 0, slept::add)).isTrue();
        assertThat(slept).hasSize(21).allMatch(ms -> ms <= ComboWait.WAIT_SLICE_MS);
        assertThat(slept.stream().mapToLong(Long::longValue).sum()).isEqualTo(2050);
        assertThat(slept.get(20)).isEqualTo(50);
        assertThat(asked[0]).isEqualTo(22);
    }

    @Test
    void aClientThatGoesAwayEndsTheWaitAtTheNextSlice_CO3() throws InterruptedException {
        List<Long> slept = new java.util.ArrayList<>();
        int[] asked = {0};
        // connected for the first three questions, gone from the fourth
        assertThat(ComboWait.waitOut(90_050, () -> ++asked[0] <= 3, slept::add)).isFalse();
        assertThat(slept).containsExactly(100L, 100L, 100L);
        assertThat(ComboWait.waitOut(2050, () -> false, ms -> {
            throw new AssertionError("slept although the client was gone");
        })).isFalse();
    }
}
