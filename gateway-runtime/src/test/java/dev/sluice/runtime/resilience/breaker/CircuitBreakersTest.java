package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.api.ProviderClass.APIKEY;
import static dev.sluice.api.ProviderClass.LOCAL;
import static dev.sluice.api.ProviderClass.OAUTH;
import static dev.sluice.runtime.resilience.breaker.BreakerState.CLOSED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.DEGRADED;
import static dev.sluice.runtime.resilience.breaker.BreakerState.HALF_OPEN;
import static dev.sluice.runtime.resilience.breaker.BreakerState.OPEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.ResilienceSettings.CircuitBreakerSettings;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers.Admission;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The provider circuit breaker (SPEC §6, BO-3, BO-4), driven by a test clock. */
class CircuitBreakersTest {

    private static final BreakerKey KEY = new BreakerKey("glm", "open.bigmodel.cn:443");
    private static final String SERVER_ERROR = "server_error";

    private final TestClock clock = TestClock.create();
    private final long t0 = clock.millis();
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);
    private final InMemoryBreakerStore store = new InMemoryBreakerStore();
    private LocalCircuitBreakers breakers = new LocalCircuitBreakers(clock, settings::get, store);
    private int connectionSeq;

    /** Counted failures from distinct connections (no dedupe). */
    private void fail(BreakerKey key, ProviderClass cls, int n, String kind) {
        for (int i = 0; i < n; i++) {
            breakers.onFailure(key, cls, "conn-" + connectionSeq++, kind);
        }
    }

    private void fail(int n) {
        fail(KEY, APIKEY, n, SERVER_ERROR);
    }

    private BreakerView view() {
        return breakers.view(KEY, APIKEY);
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    private void apikeyProfile(BreakerProfile p) {
        CircuitBreakerSettings cb = ResilienceSettings.DEFAULTS.circuitBreaker();
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        settings.set(ResilienceSettings.of(new CircuitBreakerSettings(cb.oauth(), p, cb.local()), d.providerCooldown(),
                d.connectionCooldown(), d.streamStallCooldown(), d.modelLockout()));
    }

    // --- defaults ----------------------------------------------------------------------------

    @Test
    void defaultProfilesAreTheSpecsTable_CB2_CB4() {
        CircuitBreakerSettings cb = ResilienceSettings.DEFAULTS.circuitBreaker();
        assertThat(cb.forClass(OAUTH)).isEqualTo(new BreakerProfile(5, 8, 60_000, 8, 2, Map.of()));
        assertThat(cb.forClass(APIKEY)).isEqualTo(new BreakerProfile(7, 12, 30_000, 4, 3, Map.of()));
        assertThat(cb.forClass(LOCAL)).isEqualTo(new BreakerProfile(1, 2, 15_000, 16, 3, Map.of()));
    }

    @Test
    void registryConstantsAreTheSpecsAndOmniRoutes_CB4_CB5_CB7() {
        assertThat(CircuitBreakers.DEGRADED_EXIT_SUCCESSES).isEqualTo(3);
        assertThat(CircuitBreakers.DEDUPE_WINDOW_MS).isEqualTo(5_000);
        assertThat(CircuitBreakers.DEDUPE_MAX_ENTRIES).isEqualTo(10_000);
        assertThat(CircuitBreakers.MAX_BREAKERS).isEqualTo(500);
        assertThat(CircuitBreakers.DEFAULT_CLASS).isEqualTo(APIKEY);
        assertThat(CircuitBreakers.PROBE_LEASE_MS).isEqualTo(300_000);
    }

    // --- thresholds --------------------------------------------------------------------------

    @Test
    void unknownBreakerIsClosedAndNotRemembered_CB1() {
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 0, null, 0, 0, null));
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        assertThat(breakers.canExecute(KEY, APIKEY)).isTrue();
        assertThat(breakers.retryAfterMs(KEY, APIKEY)).isZero();
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.ADMITTED);
        breakers.onSuccess(KEY, APIKEY, "c1");
        breakers.onNeutral(KEY, Admission.ADMITTED);
        assertThat(breakers.views()).isEmpty();
        assertThat(store.saves).hasValue(0);
    }

    @Test
    void apiKeyBreakerDegradesAtSevenAndOpensAtTwelve_CB2() {
        fail(6);
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 6, t0, 0, 0, SERVER_ERROR));
        fail(1);
        assertThat(view().state()).isEqualTo(DEGRADED);
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        fail(4);
        assertThat(view()).isEqualTo(new BreakerView(KEY, DEGRADED, 11, t0, 0, 0, SERVER_ERROR));
        fail(1);
        assertThat(view()).isEqualTo(new BreakerView(KEY, OPEN, 12, t0, 30_000, 0, SERVER_ERROR));
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
        assertThat(breakers.canExecute(KEY, APIKEY)).isFalse();
        assertThat(breakers.retryAfterMs(KEY, APIKEY)).isEqualTo(30_000);
    }

    @Test
    void oauthBreakerDegradesAtFiveAndOpensAtEight_CB2() {
        fail(KEY, OAUTH, 4, SERVER_ERROR);
        assertThat(breakers.view(KEY, OAUTH).state()).isEqualTo(CLOSED);
        fail(KEY, OAUTH, 1, SERVER_ERROR);
        assertThat(breakers.view(KEY, OAUTH).state()).isEqualTo(DEGRADED);
        fail(KEY, OAUTH, 2, SERVER_ERROR);
        assertThat(breakers.view(KEY, OAUTH)).isEqualTo(new BreakerView(KEY, DEGRADED, 7, t0, 0, 0, SERVER_ERROR));
        fail(KEY, OAUTH, 1, "timeout");
        assertThat(breakers.view(KEY, OAUTH)).isEqualTo(new BreakerView(KEY, OPEN, 8, t0, 60_000, 0, "timeout"));
    }

    @Test
    void localBreakerDegradesAtOneAndOpensAtTwo_CB2() {
        fail(KEY, LOCAL, 1, "network_error");
        assertThat(breakers.view(KEY, LOCAL).state()).isEqualTo(DEGRADED);
        fail(KEY, LOCAL, 1, "network_error");
        assertThat(breakers.view(KEY, LOCAL)).isEqualTo(new BreakerView(KEY, OPEN, 2, t0, 15_000, 0, "network_error"));
    }

    @Test
    void successLowersTheFailureCountByOneNotToZero_CB4() {
        fail(5);
        breakers.onSuccess(KEY, APIKEY, "c-ok");
        assertThat(view().failureCount()).isEqualTo(4);
        for (int i = 0; i < 5; i++) {
            breakers.onSuccess(KEY, APIKEY, "c-ok");
        }
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 0, t0, 0, 0, SERVER_ERROR));
    }

    @Test
    void liveSettingsApplyOnTheNextCall_CB2() {
        fail(5);
        apikeyProfile(new BreakerProfile(2, 6, 10_000, 4, 3, Map.of()));
        assertThat(view().state()).isEqualTo(CLOSED);
        fail(1);
        assertThat(view()).isEqualTo(new BreakerView(KEY, OPEN, 6, t0, 10_000, 0, SERVER_ERROR));
        apikeyProfile(new BreakerProfile(2, 6, 20_000, 4, 3, Map.of()));
        assertThat(breakers.retryAfterMs(KEY, APIKEY)).isEqualTo(20_000);
    }

    @Test
    void breakersAreKeyedByProviderAndHost_BO4() {
        BreakerKey other = new BreakerKey("glm", "api.z.ai:443");
        fail(12);
        assertThat(view().state()).isEqualTo(OPEN);
        assertThat(breakers.admit(other, APIKEY).admitted()).isTrue();
        assertThat(breakers.view(other, APIKEY)).isEqualTo(new BreakerView(other, CLOSED, 0, null, 0, 0, null));
    }

    // --- open period and backoff -------------------------------------------------------------

    @Test
    void openPeriodExamplesOfTheSpec_CB4() {
        CircuitBreakerSettings cb = ResilienceSettings.DEFAULTS.circuitBreaker();
        List<Long> apikey = new ArrayList<>();
        List<Long> oauth = new ArrayList<>();
        List<Long> local = new ArrayList<>();
        for (int cycles = 0; cycles <= 9; cycles++) {
            apikey.add(BreakerPeriods.openPeriodMs(cb.apikey(), cycles, SERVER_ERROR));
            oauth.add(BreakerPeriods.openPeriodMs(cb.oauth(), cycles, SERVER_ERROR));
            local.add(BreakerPeriods.openPeriodMs(cb.local(), cycles, null));
        }
        assertThat(apikey).containsExactly(30_000L, 30_000L, 30_000L, 30_000L, 60_000L, 120_000L, 120_000L, 120_000L,
                120_000L, 120_000L);
        assertThat(oauth).containsExactly(60_000L, 60_000L, 60_000L, 120_000L, 240_000L, 480_000L, 480_000L, 480_000L,
                480_000L, 480_000L);
        assertThat(local).containsExactly(15_000L, 15_000L, 15_000L, 15_000L, 30_000L, 60_000L, 120_000L, 240_000L,
                240_000L, 240_000L);
        assertThat(BreakerPeriods.openPeriodMs(cb.apikey(), Integer.MAX_VALUE, null)).isEqualTo(120_000);
    }

    @Test
    void eachFailedProbeReopensWithTheNextBackoffPeriod_CB4_BO3() {
        fail(12);
        long[] periods = {30_000, 30_000, 30_000, 30_000, 60_000, 120_000, 120_000};
        for (int cycle = 0; cycle < periods.length; cycle++) {
            long openedAt = clock.millis();
            assertThat(view()).as("cycle %d", cycle)
                    .isEqualTo(new BreakerView(KEY, OPEN, 12 + cycle, openedAt, periods[cycle], cycle, SERVER_ERROR));
            advance(periods[cycle] - 1);
            assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
            assertThat(breakers.retryAfterMs(KEY, APIKEY)).isEqualTo(1);
            advance(1);
            assertThat(view().state()).isEqualTo(HALF_OPEN);
            assertThat(breakers.retryAfterMs(KEY, APIKEY)).isZero();
            assertThat(breakers.admit(KEY, APIKEY).admitted()).as("the probe").isTrue();
            breakers.onFailure(KEY, APIKEY, "probe-conn", SERVER_ERROR);
        }
    }

    @Test
    void oauthBackoffDoublesAfterTwoCyclesUpToEightTimes_CB4() {
        fail(KEY, OAUTH, 8, SERVER_ERROR);
        long[] periods = {60_000, 60_000, 60_000, 120_000, 240_000, 480_000, 480_000};
        for (int cycle = 0; cycle < periods.length; cycle++) {
            assertThat(breakers.view(KEY, OAUTH).openCycles()).isEqualTo(cycle);
            assertThat(breakers.retryAfterMs(KEY, OAUTH)).as("cycle %d", cycle).isEqualTo(periods[cycle]);
            advance(periods[cycle]);
            assertThat(breakers.admit(KEY, OAUTH).admitted()).isTrue();
            breakers.onFailure(KEY, OAUTH, "probe-conn", SERVER_ERROR);
        }
    }

    @Test
    void cooldownByKindSetsTheOpenPeriodWithoutEscalation_CB4() {
        apikeyProfile(new BreakerProfile(7, 12, 30_000, 4, 3, Map.of("timeout", 90_000L)));
        BreakerProfile p = settings.get().circuitBreaker().apikey();
        assertThat(BreakerPeriods.openPeriodMs(p, 0, "timeout")).isEqualTo(90_000);
        assertThat(BreakerPeriods.openPeriodMs(p, 6, "timeout")).isEqualTo(90_000);
        assertThat(BreakerPeriods.openPeriodMs(p, 6, SERVER_ERROR)).isEqualTo(120_000);
        assertThat(BreakerPeriods.openPeriodMs(p, 0, null)).isEqualTo(30_000);

        fail(KEY, APIKEY, 12, "timeout");
        assertThat(breakers.retryAfterMs(KEY, APIKEY)).isEqualTo(90_000);
    }

    @Test
    void failuresWhileOpenDoNotExtendTheWindow_CB4() {
        fail(12);
        int savesWhenOpened = store.saves.get();
        advance(20_000);
        fail(5);
        breakers.onSuccess(KEY, APIKEY, "conn-ok");
        assertThat(view()).isEqualTo(new BreakerView(KEY, OPEN, 12, t0, 10_000, 0, SERVER_ERROR));
        assertThat(store.saves).as("ignored outcomes write nothing").hasValue(savesWhenOpened);
        advance(10_000);
        assertThat(view().state()).isEqualTo(HALF_OPEN);
    }

    // --- half-open probe ---------------------------------------------------------------------

    @Test
    void halfOpenLetsExactlyOneProbeThrough_CB1() {
        assertThat(breakers.admit(KEY, APIKEY)).as("closed").isSameAs(Admission.ADMITTED);
        fail(12);
        assertThat(breakers.admit(KEY, APIKEY)).as("open").isSameAs(Admission.REFUSED);
        advance(30_000);
        assertThat(breakers.canExecute(KEY, APIKEY)).as("peeking claims nothing").isTrue();
        assertThat(breakers.canExecute(KEY, APIKEY)).isTrue();
        Admission probe = breakers.admit(KEY, APIKEY);
        assertThat(probe.admitted()).isTrue();
        assertThat(probe.probe()).isTrue();
        assertThat(probe).hasToString("PROBE").isNotSameAs(Admission.ADMITTED);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
        assertThat(breakers.canExecute(KEY, APIKEY)).isFalse();
        assertThat(view()).isEqualTo(new BreakerView(KEY, HALF_OPEN, 12, t0, 0, 0, SERVER_ERROR));
        assertThat(Admission.ADMITTED.probe()).isFalse();
        assertThat(Admission.REFUSED.probe()).isFalse();
        assertThat(Admission.REFUSED.admitted()).isFalse();
    }

    @Test
    void successfulProbeClosesAndForgetsTheBackoff_CB1() {
        fail(12);
        for (int cycle = 0; cycle < 5; cycle++) {
            advance(breakers.retryAfterMs(KEY, APIKEY));
            assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
            breakers.onFailure(KEY, APIKEY, "probe", SERVER_ERROR);
        }
        assertThat(view().openCycles()).isEqualTo(5);
        advance(breakers.retryAfterMs(KEY, APIKEY));
        long failedAt = clock.millis() - 120_000;
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        breakers.onSuccess(KEY, APIKEY, "probe");

        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 0, failedAt, 0, 0, SERVER_ERROR));
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        fail(12);
        assertThat(breakers.retryAfterMs(KEY, APIKEY)).as("the backoff starts over").isEqualTo(30_000);
    }

    @Test
    void failedProbeReopensAtOnceEvenWithinTheDedupeWindow_BO3() {
        apikeyProfile(new BreakerProfile(7, 12, 1_000, 4, 3, Map.of()));
        fail(12);
        advance(1_000);
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        breakers.onFailure(KEY, APIKEY, "conn-0", "network_error");
        assertThat(view()).as("conn-0 failed 1 s earlier, yet the failed probe counts")
                .isEqualTo(new BreakerView(KEY, OPEN, 13, t0 + 1_000, 1_000, 1, "network_error"));
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
    }

    @Test
    void probeThatNeverReportsIsReleasedAfterFiveMinutesNotTheResetTimeout_CB1_CB6() {
        fail(12);
        advance(30_000);
        Admission first = breakers.admit(KEY, APIKEY);
        assertThat(first.probe()).isTrue();
        advance(60_000);
        assertThat(breakers.admit(KEY, APIKEY)).as("a slow probe (60 s, past resetTimeoutMs) is not joined")
                .isSameAs(Admission.REFUSED);
        advance(CircuitBreakers.PROBE_LEASE_MS - 60_000 - 1);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
        assertThat(breakers.canExecute(KEY, APIKEY)).isFalse();
        advance(1);
        assertThat(breakers.canExecute(KEY, APIKEY)).isTrue();
        Admission second = breakers.admit(KEY, APIKEY);
        assertThat(second.probe()).as("a new probe after 300 s").isTrue();
        assertThat(second).isNotSameAs(first);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
        assertThat(view()).isEqualTo(new BreakerView(KEY, HALF_OPEN, 12, t0, 0, 0, SERVER_ERROR));
    }

    @Test
    void probeLeaseIsTheResetTimeoutWhenThatIsLonger_CB1() {
        BreakerProfile slow = new BreakerProfile(7, 12, 600_000, 4, 3, Map.of());
        assertThat(BreakerPeriods.probeLeaseMs(slow)).isEqualTo(600_000);
        assertThat(BreakerPeriods.probeLeaseMs(ResilienceSettings.DEFAULTS.circuitBreaker().oauth())).isEqualTo(300_000);
        apikeyProfile(slow);
        fail(12);
        advance(600_000);
        assertThat(breakers.admit(KEY, APIKEY).probe()).isTrue();
        advance(599_999);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
        advance(1);
        assertThat(breakers.admit(KEY, APIKEY).probe()).isTrue();
    }

    @Test
    void neutralOutcomeOfTheProbeReleasesItAndChangesNothingElse_CB1_BO7() {
        fail(12);
        advance(30_000);
        Admission probe = breakers.admit(KEY, APIKEY);
        int saves = store.saves.get();
        breakers.onNeutral(KEY, probe);
        assertThat(view()).isEqualTo(new BreakerView(KEY, HALF_OPEN, 12, t0, 0, 0, SERVER_ERROR));
        assertThat(store.saves).hasValue(saves);
        Admission next = breakers.admit(KEY, APIKEY);
        assertThat(next.probe()).isTrue();
        breakers.onNeutral(KEY, probe);
        assertThat(breakers.admit(KEY, APIKEY)).as("a spent token releases nothing").isSameAs(Admission.REFUSED);
    }

    @Test
    void neutralOutcomeOfARequestAdmittedBeforeTheOpenKeepsTheProbe_CB1_BO3() {
        fail(11);
        assertThat(view().state()).isEqualTo(DEGRADED);
        Admission straggler = breakers.admit(KEY, APIKEY);
        assertThat(straggler).isSameAs(Admission.ADMITTED);
        fail(1);
        assertThat(view().state()).isEqualTo(OPEN);
        advance(30_000);
        Admission probe = breakers.admit(KEY, APIKEY);
        assertThat(probe.probe()).isTrue();

        breakers.onNeutral(KEY, straggler);  // e.g. the straggler ended in a 429
        assertThat(breakers.admit(KEY, APIKEY)).as("still exactly one probe").isSameAs(Admission.REFUSED);
        assertThat(breakers.canExecute(KEY, APIKEY)).isFalse();
        breakers.onNeutral(KEY, Admission.REFUSED);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);

        breakers.onNeutral(KEY, probe);
        assertThat(breakers.admit(KEY, APIKEY).probe()).as("only the holder releases").isTrue();
    }

    @Test
    void staleNeutralOfAProbeWhoseLeaseExpiredKeepsTheNewerProbe_CB1() {
        fail(12);
        advance(30_000);
        Admission old = breakers.admit(KEY, APIKEY);
        advance(CircuitBreakers.PROBE_LEASE_MS);
        Admission newer = breakers.admit(KEY, APIKEY);
        assertThat(newer.probe()).isTrue();

        breakers.onNeutral(KEY, old);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
        breakers.onNeutral(KEY, newer);
        assertThat(breakers.admit(KEY, APIKEY).probe()).isTrue();
    }

    @Test
    void staleNeutralOfAProbeFromAnEarlierHalfOpenKeepsTheNewerProbe_CB1_BO3() {
        fail(12);
        advance(30_000);
        Admission old = breakers.admit(KEY, APIKEY);
        breakers.onFailure(KEY, APIKEY, "straggler", SERVER_ERROR);
        assertThat(view()).as("a straggler's counted failure re-opens: real upstream evidence")
                .isEqualTo(new BreakerView(KEY, OPEN, 13, t0 + 30_000, 30_000, 1, SERVER_ERROR));
        advance(30_000);
        Admission newer = breakers.admit(KEY, APIKEY);
        assertThat(newer.probe()).isTrue();

        breakers.onNeutral(KEY, old);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
    }

    @Test
    void stragglerSuccessWhileHalfOpenClosesTheBreaker_CB1_BO3() {
        fail(12);
        advance(30_000);
        Admission probe = breakers.admit(KEY, APIKEY);
        breakers.onSuccess(KEY, APIKEY, "straggler");
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 0, t0, 0, 0, SERVER_ERROR));
        breakers.onNeutral(KEY, probe);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.ADMITTED);
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 0, t0, 0, 0, SERVER_ERROR));
    }

    @Test
    void neutralOutcomeOutsideHalfOpenChangesNothing_BO7() {
        fail(3);
        int saves = store.saves.get();
        breakers.onNeutral(KEY, Admission.ADMITTED);
        breakers.onNeutral(KEY, Admission.REFUSED);
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 3, t0, 0, 0, SERVER_ERROR));
        assertThat(store.saves).hasValue(saves);
    }

    // --- leaving DEGRADED --------------------------------------------------------------------

    @Test
    void degradedLeavesAfterThreeConsecutiveSuccesses_CB5() {
        fail(11);
        breakers.onSuccess(KEY, APIKEY, "ok");
        breakers.onSuccess(KEY, APIKEY, "ok");
        assertThat(view()).isEqualTo(new BreakerView(KEY, DEGRADED, 9, t0, 0, 0, SERVER_ERROR));
        breakers.onSuccess(KEY, APIKEY, "ok");
        assertThat(view()).as("count 8, kept below the degradation threshold")
                .isEqualTo(new BreakerView(KEY, CLOSED, 6, t0, 0, 0, SERVER_ERROR));
        fail(1);
        assertThat(view().state()).isEqualTo(DEGRADED);
    }

    @Test
    void aFailureRestartsTheSuccessStreak_CB5() {
        fail(9);
        breakers.onSuccess(KEY, APIKEY, "ok");
        breakers.onSuccess(KEY, APIKEY, "ok");
        fail(1);
        breakers.onSuccess(KEY, APIKEY, "ok");
        breakers.onSuccess(KEY, APIKEY, "ok");
        assertThat(view()).isEqualTo(new BreakerView(KEY, DEGRADED, 6, t0, 0, 0, SERVER_ERROR));
        breakers.onSuccess(KEY, APIKEY, "ok");
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 5, t0, 0, 0, SERVER_ERROR));
    }

    @Test
    void successfulConnectionTestLeavesDegraded_CB5() {
        fail(8);
        breakers.recordConnectionTestSuccess(KEY);
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 0, t0, 0, 0, SERVER_ERROR));
    }

    @Test
    void connectionTestDoesNotCloseAnOpenBreaker_CB5() {
        fail(12);
        breakers.recordConnectionTestSuccess(KEY);
        assertThat(view().state()).isEqualTo(OPEN);
        breakers.recordConnectionTestSuccess(new BreakerKey("nobody", "x:1"));
        assertThat(breakers.views()).hasSize(1);
    }

    @Test
    void staleDegradedClosesOnceTheLongestOpenPeriodPassed_CB5_CB6() {
        fail(7);
        advance(100_000);
        fail(1);
        long last = clock.millis();
        advance(119_999);
        assertThat(view()).isEqualTo(new BreakerView(KEY, DEGRADED, 8, last, 0, 0, SERVER_ERROR));
        advance(1);
        assertThat(view()).as("30 s × 4 without a failure")
                .isEqualTo(new BreakerView(KEY, CLOSED, 0, last, 0, 0, SERVER_ERROR));
        assertThat(store.rows.get(KEY).state()).as("the lazy move is persisted").isEqualTo(CLOSED);
    }

    @Test
    void staleDegradedUsesTheKindsCooldownTimesTheMultiplier_CB5() {
        apikeyProfile(new BreakerProfile(7, 12, 30_000, 4, 3, Map.of("timeout", 10_000L)));
        BreakerProfile p = settings.get().circuitBreaker().apikey();
        assertThat(BreakerPeriods.degradedExpiryMs(p, "timeout")).isEqualTo(40_000);
        assertThat(BreakerPeriods.degradedExpiryMs(p, SERVER_ERROR)).isEqualTo(120_000);
        assertThat(BreakerPeriods.degradedExpiryMs(new BreakerProfile(1, 2, 15_000, 0, 3, Map.of()), null))
                .as("at least one period").isEqualTo(15_000);

        fail(KEY, APIKEY, 7, "timeout");
        advance(39_999);
        assertThat(view().state()).isEqualTo(DEGRADED);
        advance(1);
        assertThat(view().state()).isEqualTo(CLOSED);
    }

    // --- dedupe ------------------------------------------------------------------------------

    @Test
    void sameConnectionWithinFiveSecondsCountsOnce_CB4() {
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        advance(3_000);
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        advance(1_999);
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        assertThat(view()).as("measured from the last counted failure")
                .isEqualTo(new BreakerView(KEY, CLOSED, 1, t0, 0, 0, SERVER_ERROR));
        breakers.onFailure(KEY, APIKEY, "c2", SERVER_ERROR);
        breakers.onFailure(new BreakerKey("glm", "api.z.ai:443"), APIKEY, "c1", SERVER_ERROR);
        assertThat(view().failureCount()).as("another connection counts").isEqualTo(2);
        assertThat(breakers.view(new BreakerKey("glm", "api.z.ai:443"), APIKEY).failureCount())
                .as("another breaker counts").isEqualTo(1);
        advance(1);
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        assertThat(view()).isEqualTo(new BreakerView(KEY, CLOSED, 3, t0 + 5_000, 0, 0, SERVER_ERROR));
    }

    @Test
    void aSuccessEndsTheConnectionsDedupe_CB4() {
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        assertThat(view().failureCount()).isEqualTo(1);
        breakers.onSuccess(KEY, APIKEY, "c1");
        advance(1_000);
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        assertThat(view().failureCount()).isEqualTo(1);
        assertThat(view().lastFailureAt()).isEqualTo(t0 + 1_000);
    }

    @Test
    void aSuccessWithNothingInTheDedupeWindowLeavesTheDedupeMemoryAlone_CB4() {
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        advance(CircuitBreakers.DEDUPE_WINDOW_MS);
        breakers.onSuccess(KEY, APIKEY, "c1");
        assertThat(breakers.dedupeEntries()).as("the stale entry is not worth a lookup").isEqualTo(1);
        assertThat(view().failureCount()).isZero();
        breakers.onFailure(KEY, APIKEY, "c1", SERVER_ERROR);
        assertThat(view().failureCount()).as("a stale entry dedupes nothing").isEqualTo(1);
    }

    @Test
    void evictingABreakerForgetsItsDedupeEntries_CB4_CB7() {
        List<BreakerKey> idle = new ArrayList<>();
        for (int i = 0; i < CircuitBreakers.MAX_BREAKERS; i++) {
            BreakerKey k = new BreakerKey("p" + i, "h:1");
            breakers.onFailure(k, APIKEY, "c1", SERVER_ERROR);
            breakers.onSuccess(k, APIKEY, "other");  // idle again, c1's entry still in its window
            idle.add(k);
            advance(1);
        }
        assertThat(breakers.dedupeEntries()).isEqualTo(CircuitBreakers.MAX_BREAKERS);
        breakers.onFailure(KEY, APIKEY, "c9", SERVER_ERROR);
        assertThat(breakers.size()).isEqualTo(CircuitBreakers.MAX_BREAKERS);
        assertThat(breakers.dedupeEntries()).isEqualTo(CircuitBreakers.MAX_BREAKERS);

        BreakerKey evicted = idle.get(0);
        breakers.onSuccess(evicted, APIKEY, "c1");
        breakers.onFailure(evicted, APIKEY, "c1", SERVER_ERROR);
        assertThat(breakers.view(evicted, APIKEY).failureCount()).as("a new breaker, nothing to dedupe").isEqualTo(1);
    }

    @Test
    void dedupeMemoryIsBounded_CB4() {
        apikeyProfile(new BreakerProfile(1_000_000, 1_000_000, 30_000, 4, 3, Map.of()));
        fail(KEY, APIKEY, CircuitBreakers.DEDUPE_MAX_ENTRIES + 1, SERVER_ERROR);
        assertThat(breakers.dedupeEntries()).isEqualTo(CircuitBreakers.DEDUPE_MAX_ENTRIES);
        assertThat(view().failureCount()).isEqualTo(CircuitBreakers.DEDUPE_MAX_ENTRIES + 1);
        advance(CircuitBreakers.DEDUPE_WINDOW_MS);
        fail(1);
        assertThat(breakers.dedupeEntries()).as("stale entries are dropped first").isEqualTo(1);
    }

    // --- views, reset, registry --------------------------------------------------------------

    @Test
    void viewsListEveryBreakerLazilyWithItsCallersClass_CB6_AD2() {
        BreakerKey claude = new BreakerKey("claude", "api.anthropic.com:443");
        fail(KEY, APIKEY, 12, SERVER_ERROR);
        fail(claude, OAUTH, 8, "timeout");
        advance(30_000);
        assertThat(breakers.views()).containsExactly(
                new BreakerView(claude, OPEN, 8, t0, 30_000, 0, "timeout"),
                new BreakerView(KEY, HALF_OPEN, 12, t0, 0, 0, SERVER_ERROR));
        assertThat(store.rows.get(KEY).state()).isEqualTo(HALF_OPEN);
    }

    @Test
    void resetForgetsEveryBreakerAndItsRows_CB7() {
        BreakerKey openai = new BreakerKey("openai", "api.openai.com:443");
        fail(12);
        breakers.onFailure(openai, APIKEY, "c1", SERVER_ERROR);
        assertThat(store.rows).hasSize(2);

        assertThat(breakers.reset()).isEqualTo(2);
        assertThat(breakers.views()).isEmpty();
        assertThat(store.rows).isEmpty();
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        breakers.onFailure(openai, APIKEY, "c1", SERVER_ERROR);
        assertThat(breakers.view(openai, APIKEY).failureCount()).as("dedupe forgotten too").isEqualTo(1);
        assertThat(breakers.reset()).isEqualTo(1);
        assertThat(breakers.reset()).isZero();
    }

    @Test
    void resetOfOneProviderCoversAllItsHosts_CB7() {
        BreakerKey zai = new BreakerKey("glm", "api.z.ai:443");
        BreakerKey openai = new BreakerKey("openai", "api.openai.com:443");
        fail(12);
        fail(zai, APIKEY, 2, SERVER_ERROR);
        fail(openai, APIKEY, 12, SERVER_ERROR);

        assertThat(breakers.reset("glm")).isEqualTo(2);
        assertThat(breakers.views()).extracting(BreakerView::key).containsExactly(openai);
        assertThat(store.rows.keySet()).containsExactly(openai);
        assertThat(breakers.view(openai, APIKEY).state()).isEqualTo(OPEN);
        assertThat(breakers.reset("nobody")).isZero();
    }

    @Test
    void registryCapEvictsIdleClosedBreakersFirst_CB7() {
        List<BreakerKey> idle = new ArrayList<>();
        for (int i = 0; i < CircuitBreakers.MAX_BREAKERS - 1; i++) {
            BreakerKey k = new BreakerKey("p" + i, "h:1");
            breakers.onFailure(k, APIKEY, "c", SERVER_ERROR);
            breakers.onSuccess(k, APIKEY, "c");
            idle.add(k);
            advance(1);
        }
        fail(KEY, LOCAL, 2, SERVER_ERROR);
        assertThat(breakers.size()).isEqualTo(CircuitBreakers.MAX_BREAKERS);

        BreakerKey newcomer = new BreakerKey("new", "h:1");
        breakers.onFailure(newcomer, APIKEY, "c", SERVER_ERROR);
        assertThat(breakers.size()).isEqualTo(CircuitBreakers.MAX_BREAKERS);
        assertThat(store.rows).as("the least recently changed idle breaker").doesNotContainKey(idle.get(0));
        assertThat(breakers.views()).extracting(BreakerView::key).doesNotContain(idle.get(0)).contains(KEY, newcomer,
                idle.get(1));
        assertThat(breakers.view(KEY, LOCAL).state()).isEqualTo(OPEN);
    }

    @Test
    void registryCapNeverEvictsABreakerWithEvidence_CB7() {
        for (int i = 0; i < CircuitBreakers.MAX_BREAKERS; i++) {
            breakers.onFailure(new BreakerKey("p" + i, "h:1"), APIKEY, "c", SERVER_ERROR);
        }
        breakers.onFailure(KEY, APIKEY, "c", SERVER_ERROR);
        assertThat(breakers.size()).isEqualTo(CircuitBreakers.MAX_BREAKERS + 1);
        assertThat(view().failureCount()).isEqualTo(1);
    }

    // --- persistence -------------------------------------------------------------------------

    @Test
    void everyStateChangeAndCountedFailureIsPersisted_CB7() {
        fail(1);
        assertThat(store.rows.get(KEY))
                .isEqualTo(new BreakerSnapshot(KEY, APIKEY, CLOSED, 1, 0, null, t0, SERVER_ERROR, 0, t0));
        advance(1_000);
        fail(10);
        breakers.onSuccess(KEY, APIKEY, "ok");
        assertThat(store.rows.get(KEY))
                .isEqualTo(new BreakerSnapshot(KEY, APIKEY, DEGRADED, 10, 0, null, t0 + 1_000, SERVER_ERROR, 1, t0 + 1_000));
        advance(1_000);
        fail(KEY, APIKEY, 2, "timeout");
        assertThat(store.rows.get(KEY))
                .isEqualTo(new BreakerSnapshot(KEY, APIKEY, OPEN, 12, 0, t0 + 2_000, t0 + 2_000, "timeout", 0, t0 + 2_000));
    }

    @Test
    void anOpenBreakerStaysOpenAcrossARestartUntilItsPeriodPasses_CB7() {
        fail(12);
        advance(10_000);
        breakers = new LocalCircuitBreakers(clock, settings::get, store);

        assertThat(view()).isEqualTo(new BreakerView(KEY, OPEN, 12, t0, 20_000, 0, SERVER_ERROR));
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
        advance(20_000);
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
    }

    @Test
    void aRestoredHalfOpenBreakerHasNoProbeInFlight_CB7() {
        fail(12);
        advance(30_000);
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        breakers = new LocalCircuitBreakers(clock, settings::get, store);

        assertThat(view().state()).isEqualTo(HALF_OPEN);
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isTrue();
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
    }

    @Test
    void escalationAndDegradedStreakSurviveARestart_CB7() {
        fail(KEY, OAUTH, 8, SERVER_ERROR);
        for (int cycle = 0; cycle < 3; cycle++) {
            advance(breakers.retryAfterMs(KEY, OAUTH));
            breakers.admit(KEY, OAUTH);
            breakers.onFailure(KEY, OAUTH, "probe", SERVER_ERROR);
        }
        BreakerKey degraded = new BreakerKey("minimax", "api.minimax.io:443");
        fail(degraded, APIKEY, 7, SERVER_ERROR);
        breakers.onSuccess(degraded, APIKEY, "ok");
        breakers.onSuccess(degraded, APIKEY, "ok");
        breakers = new LocalCircuitBreakers(clock, settings::get, store);

        assertThat(breakers.views()).as("views use the persisted class").containsExactly(
                new BreakerView(KEY, OPEN, 11, clock.millis(), 120_000, 3, SERVER_ERROR),
                new BreakerView(degraded, DEGRADED, 5, clock.millis(), 0, 0, SERVER_ERROR));
        breakers.onSuccess(degraded, APIKEY, "ok");
        assertThat(breakers.view(degraded, APIKEY).state()).as("the third success in a row").isEqualTo(CLOSED);
    }

    @Test
    void aRestoredBreakerWithoutAClassUsesTheDefaultProfile_CB7() {
        store.rows.put(KEY, new BreakerSnapshot(KEY, null, OPEN, 12, 0, t0, t0, SERVER_ERROR, 0, t0));
        breakers = new LocalCircuitBreakers(clock, settings::get, store);
        assertThat(breakers.views()).containsExactly(new BreakerView(KEY, OPEN, 12, t0, 30_000, 0, SERVER_ERROR));
    }

    @Test
    void aFailingStoreNeverFailsTheBreaker_CB7() {
        store.failing = true;
        fail(12);
        assertThat(view().state()).isEqualTo(OPEN);
        assertThat(breakers.admit(KEY, APIKEY).admitted()).isFalse();
        assertThat(breakers.reset()).isEqualTo(1);
        assertThat(view().state()).isEqualTo(CLOSED);
    }
}
