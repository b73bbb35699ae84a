package dev.sluice.runtime.resilience.breaker.shared;

import static dev.sluice.api.ProviderClass.APIKEY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers.Admission;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shared breakers' decorator (NF-6) over a real local breaker, on a board that answers what
 * each test sets and records what it is told: what the decorator announces, claims, closes and
 * gives back, and that the local breaker alone knows nothing of it.
 */
class SharedCircuitBreakersTest {

    private static final BreakerKey KEY = new BreakerKey("glm", "open.bigmodel.cn:443");
    private static final BreakerProfile APIKEY_PROFILE = ResilienceSettings.DEFAULTS.circuitBreaker().forClass(APIKEY);
    private static final long LEASE = Math.max(CircuitBreakers.PROBE_LEASE_MS, APIKEY_PROFILE.resetTimeoutMs());

    private final TestClock clock = TestClock.create();
    private final RecordingBoard board = new RecordingBoard();
    private final CircuitBreakers local = CircuitBreakers.local(clock, () -> ResilienceSettings.DEFAULTS, BreakerStore.none());
    private final CircuitBreakers shared = SharedCircuitBreakers.over(local, board, () -> ResilienceSettings.DEFAULTS);

    /** Answers {@link #answer} to every admit; records every call as text. */
    private static final class RecordingBoard implements BreakerBoard {
        long answer = ADMITTED;
        final List<String> calls = new ArrayList<>();

        @Override
        public void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
            calls.add("opened " + key.provider() + " " + periodMs + " " + probeLeaseMs);
        }

        @Override
        public void closed(BreakerKey key) {
            calls.add("closed " + key.provider());
        }

        @Override
        public long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
            calls.add("admit " + key.provider() + " " + claim + " " + probeLeaseMs);
            return answer;
        }

        @Override
        public void released(BreakerKey key) {
            calls.add("released " + key.provider());
        }

        @Override
        public void reset(String provider) {
            calls.add("reset " + provider);
        }
    }

    private void failUntilOpen() {
        for (int i = 0; i < APIKEY_PROFILE.failureThreshold(); i++) {
            shared.onFailure(KEY, APIKEY, "conn-" + i, "server_error");
        }
    }

    /** The shared probe, claimed here. */
    private Admission claimSharedProbe() {
        board.answer = BreakerBoard.PROBE;
        Admission a = shared.admit(KEY, APIKEY);
        assertThat(a.admitted()).isTrue();
        board.answer = BreakerBoard.ADMITTED;
        board.calls.clear();
        return a;
    }

    @Test
    void theFailureThatOpensTheLocalBreakerAnnouncesItsOpenPeriodOnce_NF6() {
        for (int i = 0; i < APIKEY_PROFILE.failureThreshold() - 1; i++) {
            assertThat(shared.onFailure(KEY, APIKEY, "conn-" + i, "server_error")).isFalse();
        }
        assertThat(board.calls).noneMatch(c -> c.startsWith("opened"));
        assertThat(shared.onFailure(KEY, APIKEY, "conn-last", "server_error")).as("this failure opened it").isTrue();
        assertThat(local.view(KEY, APIKEY).state()).isEqualTo(BreakerState.OPEN);
        assertThat(board.calls).contains("opened glm " + APIKEY_PROFILE.resetTimeoutMs() + " " + LEASE);

        board.calls.clear();
        assertThat(shared.onFailure(KEY, APIKEY, "conn-more", "server_error")).as("already open").isFalse();
        assertThat(board.calls).noneMatch(c -> c.startsWith("opened"));
    }

    @Test
    void anAttemptTheLocalBreakerAdmitsIsAskedOfTheBoardClaimingItsProbe_NF6_CB1() {
        assertThat(shared.admit(KEY, APIKEY)).isSameAs(Admission.ADMITTED);
        assertThat(board.calls).containsExactly("admit glm true " + LEASE);
        board.answer = 5_000;
        assertThat(shared.admit(KEY, APIKEY)).as("open on another instance").isSameAs(Admission.REFUSED);
        assertThat(local.admit(KEY, APIKEY)).as("the local breaker saw nothing").isSameAs(Admission.ADMITTED);
    }

    @Test
    void aLocalProbeIsGivenBackWhenAnotherInstanceHoldsTheSharedOne_NF6_CB1() {
        failUntilOpen();
        clock.advance(Duration.ofMillis(APIKEY_PROFILE.resetTimeoutMs()));
        board.answer = 1_000;
        assertThat(shared.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
        assertThat(local.admit(KEY, APIKEY).probe()).as("the local probe is free again").isTrue();
    }

    @Test
    void selectionAsksTheBoardWithoutClaimingAndWaitsTheLongerOfBothPeriods_NF6() {
        board.answer = 7_000;
        assertThat(shared.canExecute(KEY, APIKEY)).isFalse();
        assertThat(shared.retryAfterMs(KEY, APIKEY)).isEqualTo(7_000);
        assertThat(board.calls).allMatch(c -> c.equals("admit glm false " + LEASE));

        failUntilOpen();
        board.answer = 1_000;
        assertThat(shared.retryAfterMs(KEY, APIKEY)).as("the local open period is longer").isEqualTo(APIKEY_PROFILE.resetTimeoutMs());
        board.answer = BreakerBoard.PROBE;
        clock.advance(Duration.ofMillis(APIKEY_PROFILE.resetTimeoutMs()));
        assertThat(shared.retryAfterMs(KEY, APIKEY)).as("a free shared probe is no wait").isZero();
    }

    @Test
    void onlyTheSharedProbeHeldHereIsClosedOnTheBoardBySuccess_NF6_CB1() {
        shared.onSuccess(KEY, APIKEY, "c");
        assertThat(board.calls).doesNotContain("closed glm");
        claimSharedProbe();
        shared.onSuccess(KEY, APIKEY, "c");
        assertThat(board.calls).containsExactly("closed glm");
        shared.onSuccess(KEY, APIKEY, "c");
        assertThat(board.calls).as("closed once").containsExactly("closed glm");
    }

    @Test
    void aSharedProbeEndingWithoutEvidenceIsGivenBackOnTheBoard_NF6_CB1() {
        Admission probe = claimSharedProbe();
        shared.onNeutral(KEY, probe);
        assertThat(board.calls).containsExactly("released glm");
        shared.onNeutral(KEY, probe);
        assertThat(board.calls).as("released once").containsExactly("released glm");
    }

    @Test
    void aFailedSharedProbeOpensTheBreakerOnTheBoardForOneMoreCycle_NF6_BO3() {
        claimSharedProbe();
        assertThat(shared.onFailure(KEY, APIKEY, "c", "server_error")).as("the local breaker only counted it").isFalse();
        assertThat(board.calls).containsExactly("opened glm " + APIKEY_PROFILE.resetTimeoutMs() + " " + LEASE);
    }

    @Test
    void aResetDeletesTheSharedStateAndForgetsTheProbesHeldHere_NF6_CB7() {
        claimSharedProbe();
        shared.reset("glm");
        shared.reset();
        assertThat(board.calls).containsExactly("reset glm", "reset null");
        shared.onSuccess(KEY, APIKEY, "c");
        assertThat(board.calls).as("no probe held any longer").doesNotContain("closed glm");
    }

    @Test
    void anotherInstancesResetForgetsTheProbeHeldHereAndResetsTheLocalBreakers_NF6() {
        failUntilOpen();
        clock.advance(Duration.ofMillis(APIKEY_PROFILE.resetTimeoutMs()));
        assertThat(claimSharedProbe().probe()).as("the local probe as well").isTrue();
        shared.onClusterEvent(new ClusterEvent.BreakersReset("glm"), clock.millis());
        assertThat(local.view(KEY, APIKEY).state()).isEqualTo(BreakerState.CLOSED);
        shared.onSuccess(KEY, APIKEY, "c");
        assertThat(board.calls).as("the shared keys are the other instance's business").isEmpty();
    }
}
