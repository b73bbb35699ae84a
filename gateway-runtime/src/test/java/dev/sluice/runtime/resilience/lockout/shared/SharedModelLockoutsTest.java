package dev.sluice.runtime.resilience.lockout.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import dev.sluice.runtime.resilience.lockout.LockoutFailure;
import dev.sluice.runtime.resilience.lockout.LockoutListener;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The shared mode's decorator of model lockout (NF-6, issue 35): what it writes to its board and
 * what it asks of it, against a fake board that records every call.
 */
class SharedModelLockoutsTest {

    private static final long BASE = 120_000;
    private static final ModelLockoutSettings ON = new ModelLockoutSettings(true, List.of(403, 404, 429, 502, 503, 504), BASE,
            1_800_000, 10, true);

    private final TestClock clock = TestClock.create();
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(with(ON));
    private final FakeBoard board = new FakeBoard();
    private final ModelLockouts local = ModelLockouts.local(clock, settings::get);
    private final ModelLockouts shared = SharedModelLockouts.over(local, board, clock, settings::get);

    private static ResilienceSettings with(ModelLockoutSettings ml) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        return ResilienceSettings.of(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(), ml);
    }

    /** Records every call; answers {@link #find} from what a test put in {@link #announced}. */
    private static final class FakeBoard implements LockoutBoard {
        final List<String> calls = new ArrayList<>();
        final Map<String, Lock> announced = new HashMap<>();
        final List<List<String>> asked = new ArrayList<>();

        @Override
        public void locked(String connectionId, String slot, Lock lock) {
            calls.add("locked " + connectionId + " " + slot + " " + lock);
        }

        @Override
        public Lock find(String connectionId, List<String> slots) {
            asked.add(slots);
            for (String slot : slots) {
                Lock l = announced.get(connectionId + " " + slot);
                if (l != null) {
                    return l;
                }
            }
            return null;
        }

        @Override
        public void cleared(String connectionId, List<String> slots) {
            calls.add("cleared " + connectionId + " " + slots);
        }

        @Override
        public void clearedConnection(String connectionId) {
            calls.add("cleared connection " + connectionId);
        }
    }

    private static LockoutFailure quota(String conn, String model) {
        return LockoutFailure.builder("codex", conn, model).family("gpt-5").failure(FailureReason.QUOTA_EXHAUSTED, 429).build();
    }

    @Test
    void everyLockPutInForceIsAnnouncedUnderItsSlotForTheTimeItHasLeft_NF6() {
        shared.recordFailure(quota("c1", "gpt-5.1"));
        clock.advance(Duration.ofMillis(1_000));
        shared.recordFailure(LockoutFailure.builder("codex", "c1", "GPT-5.1").failure(FailureReason.SERVER_ERROR, 503).build());
        shared.recordFailure(LockoutFailure.builder("codex", "c2", "o3").failure(FailureReason.NOT_FOUND, 404).build());
        shared.lockForRetryInfo("codex", "c3", "Gemini-X", FailureReason.RATE_LIMIT_EXCEEDED, 600_000);
        assertThat(board.calls).containsExactly(
                "locked c1 family:gpt-5 " + new LockoutBoard.Lock("gpt-5", LockScope.MODEL, FailureReason.QUOTA_EXHAUSTED, BASE),
                "locked c1 exact:gpt-5.1 " + new LockoutBoard.Lock("gpt-5.1", LockScope.EXACT, FailureReason.SERVER_ERROR, BASE),
                "locked c2 model:o3 " + new LockoutBoard.Lock("o3", LockScope.MODEL, FailureReason.NOT_FOUND, BASE),
                "locked c3 retry:gemini-x " + new LockoutBoard.Lock("gemini-x", LockScope.EXACT, FailureReason.RATE_LIMIT_EXCEEDED, 600_000));
    }

    @Test
    void theEngineFirstPassAnnouncesToo_NF6() {
        // the Mechanism's take() goes through the decorator's recordFailure: the local table tells the board
        assertThat(shared.recordFailure(quota("c1", "gpt-5.1"))).isNotNull();
        assertThat(local.blocking("codex", "c1", "gpt-5.1", "gpt-5")).as("the lock is the local table's").isNotNull();
        assertThat(board.calls).hasSize(1);
    }

    @Test
    void aLockTheDecayEndsEarlyIsWithdrawnFromItsSlot_NF6_ML3() {
        shared.recordFailure(LockoutFailure.builder("codex", "c1", "o3").failure(FailureReason.SERVER_ERROR, 502).build());
        board.calls.clear();
        shared.onSuccess("codex", "c1", "o3", null);
        assertThat(board.calls).containsExactly("cleared c1 [exact:o3]");
        shared.onSuccess("codex", "c1", "o3", null);
        assertThat(board.calls).as("nothing left to withdraw").hasSize(1);
    }

    @Test
    void aConnectionThisInstanceDoesNotBlockIsHeldForTheLockAnotherAnnounced_NF6() {
        board.announced.put("c2 family:gpt-5", new LockoutBoard.Lock("gpt-5", LockScope.MODEL, FailureReason.QUOTA_EXHAUSTED, 30_000));
        ModelLockout own = shared.recordFailure(quota("c1", "gpt-5.1"));
        board.announced.put("c1 family:gpt-5", new LockoutBoard.Lock("gpt-5", LockScope.MODEL, FailureReason.QUOTA_EXHAUSTED, 5_000));

        ModelLockouts.Query q = shared.query("codex", "gpt-5.1", "gpt-5");
        assertThat(q.blocking("c1")).as("its own lock first").isEqualTo(own);
        ModelLockout announced = q.blocking("c2");
        assertThat(announced).isEqualTo(new ModelLockout("codex", "c2", "gpt-5", LockScope.MODEL, FailureReason.QUOTA_EXHAUSTED,
                clock.millis(), clock.millis() + 30_000, 1));
        assertThat(q.blocking("c2", clock.millis() + 30_000)).as("ended by then").isNull();
        assertThat(q.blocking("c3")).isNull();
        assertThat(board.asked).contains(List.of("family:gpt-5", "model:gpt-5.1", "exact:gpt-5.1", "retry:gpt-5.1"));
        assertThat(local.query("codex", "gpt-5.1", "gpt-5").blocking("c2")).as("the local table knows nothing of it").isNull();
    }

    @Test
    void withLockoutOffOnlyTheRetryInfoSlotIsAsked_NF6_RQ4() {
        settings.set(ResilienceSettings.DEFAULTS);
        board.asked.clear();
        shared.query("codex", "GPT-5.1", "gpt-5").blocking("c1");
        shared.query("codex", "o3", null);
        assertThat(board.asked).containsExactly(List.of("retry:gpt-5.1"));
        settings.set(with(ON));
        shared.query("codex", "o3", null).blocking("c1");
        assertThat(board.asked).last().isEqualTo(List.of("model:o3", "exact:o3", "retry:o3"));
    }

    @Test
    void anOperatorsClearWithdrawsEverySlotTheNameMayStandFor_NF6_ML5() {
        board.announced.put("c1 exact:gpt-5", new LockoutBoard.Lock("gpt-5", LockScope.EXACT, FailureReason.SERVER_ERROR, 30_000));
        assertThat(shared.clear("codex", "c1", "GPT-5")).as("another instance's lock was announced").isTrue();
        assertThat(board.calls).containsExactly("cleared c1 [family:GPT-5, model:GPT-5, exact:gpt-5, retry:gpt-5]");
        board.announced.clear();
        shared.recordFailure(quota("c1", "gpt-5.1"));
        assertThat(shared.clear("codex", "c1", "gpt-5")).as("this instance's own").isTrue();
        assertThat(shared.clear("codex", "c1", "gpt-5")).as("nothing anywhere").isFalse();

        shared.recordFailure(quota("c1", "gpt-5.1"));
        board.calls.clear();
        assertThat(shared.clearConnection("c1")).isEqualTo(1);
        assertThat(board.calls).containsExactly("cleared connection c1");
        assertThat(local.hasAny("c1")).isFalse();
    }

    @Test
    void anotherInstancesClearReachesTheLocalTableAndLeavesTheBoardAlone_NF6() {
        shared.recordFailure(quota("c1", "gpt-5.1"));
        shared.recordFailure(quota("c2", "gpt-5.1"));
        board.calls.clear();
        shared.onClusterEvent(new ClusterEvent.ModelCleared("codex", "c1", "gpt-5"), clock.millis());
        shared.onClusterEvent(new ClusterEvent.ConnectionCleared("c2"), clock.millis());
        assertThat(local.hasAny("c1")).isFalse();
        assertThat(local.hasAny("c2")).isFalse();
        assertThat(board.calls).as("no echo").isEmpty();
    }

    @Test
    void theLocalTableHasOneListener_issue35() {
        assertThatThrownBy(() -> SharedModelLockouts.over(local, board, clock, settings::get)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> shared.listen(LockoutListener.NONE)).isInstanceOf(IllegalStateException.class);
    }
}
