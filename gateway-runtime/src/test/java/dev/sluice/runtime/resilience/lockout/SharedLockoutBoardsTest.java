package dev.sluice.runtime.resilience.lockout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ProviderCooldownSettings;
import dev.sluice.runtime.resilience.lockout.shared.LockoutBoard;
import dev.sluice.runtime.resilience.lockout.shared.SharedModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.SharedProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.WindowBoard;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What model lockouts and provider cooldown windows tell and ask their shared boards (NF-6), with
 * in-memory boards on the test clock standing in for Redis (whose own behaviour
 * RedisSharedStateTest checks on a real server). Two mechanisms over one board are two instances.
 */
class SharedLockoutBoardsTest {

    private static final ModelLockoutSettings LOCKOUT_ON = new ModelLockoutSettings(true,
            List.of(403, 404, 429, 502, 503, 504), 120_000, 1_800_000, 10, true);
    private static final ProviderCooldownSettings D = ResilienceSettings.DEFAULTS.providerCooldown();
    private static final ProviderCooldownSettings WINDOW_ON = new ProviderCooldownSettings(true, D.minRetryCooldownMs(),
            D.maxRetryCooldownMs(), D.oauth(), D.apikey(), D.local());

    private final TestClock clock = TestClock.create();
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(with(LOCKOUT_ON, WINDOW_ON));
    private final Boards boards = new Boards();

    private static ResilienceSettings with(ModelLockoutSettings ml, ProviderCooldownSettings pc) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        return ResilienceSettings.of(d.circuitBreaker(), pc, d.connectionCooldown(), d.streamStallCooldown(), ml);
    }

    /** A lockout board and a window board that behave like the Redis ones, on the test clock. */
    private final class Boards implements LockoutBoard, WindowBoard {
        final Map<String, LockoutBoard.Lock> locks = new HashMap<>();
        final Map<String, Long> lockedUntil = new HashMap<>();
        final Map<String, Long> windowUntil = new HashMap<>();

        @Override
        public boolean shared() {
            return true;
        }

        @Override
        public void locked(String connectionId, String slot, Lock lock) {
            locks.put(connectionId + "|" + slot, lock);
            lockedUntil.put(connectionId + "|" + slot, clock.millis() + lock.remainingMs());
        }

        @Override
        public Lock find(String connectionId, List<String> slots) {
            Lock best = null;
            for (String slot : slots) {
                long left = lockedUntil.getOrDefault(connectionId + "|" + slot, 0L) - clock.millis();
                if (left > 0 && (best == null || left > best.remainingMs())) {
                    Lock l = locks.get(connectionId + "|" + slot);
                    best = new Lock(l.model(), l.scope(), l.reason(), left);
                }
            }
            return best;
        }

        @Override
        public void cleared(String connectionId, List<String> slots) {
            slots.forEach(s -> lockedUntil.remove(connectionId + "|" + s));
        }

        @Override
        public void clearedConnection(String connectionId) {
            lockedUntil.keySet().removeIf(k -> k.startsWith(connectionId + "|"));
        }

        @Override
        public void cooling(String provider, long remainingMs) {
            windowUntil.put(provider, clock.millis() + remainingMs);
        }

        @Override
        public void cleared(String provider) {
            windowUntil.remove(provider);
        }

        @Override
        public long remainingMs(String provider) {
            return Math.max(0, windowUntil.getOrDefault(provider, 0L) - clock.millis());
        }

        @Override
        public void clearedAll() {
            windowUntil.clear();
        }
    }

    /** One instance's lockouts in shared mode over the test's board. */
    private ModelLockouts instance() {
        return SharedModelLockouts.over(ModelLockouts.local(clock, settings::get), boards, clock, settings::get);
    }

    private static LockoutFailure quota(String conn, String model) {
        return LockoutFailure.builder("codex", conn, model).family("gpt-5").failure(FailureReason.QUOTA_EXHAUSTED, 429).build();
    }

    @Test
    void aLockoutSetOnOneInstanceBlocksTheModelOnAnotherUntilItEnds_NF6_ML4() {
        ModelLockouts a = instance();
        ModelLockouts b = instance();
        ModelLockout set = a.recordFailure(quota("c1", "gpt-5.1"));
        assertThat(boards.lockedUntil).containsEntry("c1|family:gpt-5", set.expiresAt());

        // B saw no failure; its own table is empty; the family lock covers every model of the family
        ModelLockout seen = b.blocking("codex", "c1", "gpt-5.2", "gpt-5");
        assertThat(seen).isNotNull();
        assertThat(seen.model()).isEqualTo("gpt-5");
        assertThat(seen.scope()).isEqualTo(LockScope.MODEL);
        assertThat(seen.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(seen.expiresAt()).isEqualTo(set.expiresAt());
        assertThat(b.blocking("codex", "c2", "gpt-5.2", "gpt-5")).as("another connection").isNull();
        assertThat(b.blocking("codex", "c1", "o3", null)).as("another model").isNull();

        clock.advance(Duration.ofMillis(set.expiresAt() - clock.millis()));
        assertThat(b.blocking("codex", "c1", "gpt-5.2", "gpt-5")).isNull();
    }

    @Test
    void anExactAndARetryInfoLockAreSharedByTheirExactModel_NF6_ML1_RQ4() {
        ModelLockouts a = instance();
        ModelLockouts b = instance();
        a.recordFailure(LockoutFailure.builder("codex", "c1", "GPT-5.1").failure(FailureReason.SERVER_ERROR, 503).build());
        assertThat(b.blocking("codex", "c1", "gpt-5.1", null).scope()).isEqualTo(LockScope.EXACT);
        a.lockForRetryInfo("codex", "c2", "gemini-x", FailureReason.RATE_LIMIT_EXCEEDED, 600_000);
        // RetryInfo locks hold even with lockout switched off
        settings.set(with(new ModelLockoutSettings(false, LOCKOUT_ON.errorCodes(), 120_000, 1_800_000, 10, true), WINDOW_ON));
        assertThat(b.blocking("codex", "c2", "gemini-x", null).remainingMs(clock.millis())).isEqualTo(600_000);
        assertThat(b.blocking("codex", "c1", "gpt-5.1", null)).as("ordinary locks are off").isNull();
    }

    @Test
    void anOperatorsClearOnAnyInstanceWithdrawsTheAnnouncement_NF6_ML5() {
        ModelLockouts a = instance();
        ModelLockouts b = instance();
        a.recordFailure(quota("c1", "gpt-5.1"));
        assertThat(b.clear("codex", "c1", "gpt-5")).as("B held nothing of its own, but A's lock was announced: removed").isTrue();
        assertThat(b.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
        assertThat(b.clear("codex", "c1", "gpt-5")).as("nothing left to clear anywhere").isFalse();

        a.recordFailure(quota("c1", "gpt-5.1"));
        a.recordFailure(LockoutFailure.builder("codex", "c1", "o3").failure(FailureReason.SERVER_ERROR, 502).build());
        b.clearConnection("c1");
        assertThat(b.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
        assertThat(b.blocking("codex", "c1", "o3", null)).isNull();
    }

    @Test
    void aProviderWindowCrossedOnOneInstanceHoldsTheProviderOnAnotherUntilASuccessEndsIt_NF6_PC2() {
        ProviderCooldowns a = SharedProviderCooldowns.over(ProviderCooldowns.local(clock, settings::get), boards, ClusterEvents.NONE, settings::get);
        ProviderCooldowns b = SharedProviderCooldowns.over(ProviderCooldowns.local(clock, settings::get), boards, ClusterEvents.NONE, settings::get);
        int threshold = WINDOW_ON.apikey().failureThreshold();
        for (int i = 0; i < threshold - 1; i++) {
            a.recordFailure("glm", ProviderClass.APIKEY, null);
        }
        assertThat(boards.windowUntil).as("below the threshold nothing is announced").isEmpty();
        a.recordFailure("glm", ProviderClass.APIKEY, null);
        long cooldown = WINDOW_ON.apikey().cooldownMs();
        assertThat(a.providerRemainingMs("glm", ProviderClass.APIKEY)).isEqualTo(cooldown);
        assertThat(b.providerRemainingMs("glm", ProviderClass.APIKEY)).isEqualTo(cooldown);
        clock.advance(Duration.ofMillis(1_000));
        assertThat(b.providerRemainingMs("glm", ProviderClass.APIKEY)).isEqualTo(cooldown - 1_000);

        a.recordSuccess("glm", null);
        assertThat(b.providerRemainingMs("glm", ProviderClass.APIKEY)).isZero();

        // disabled: the gate answers 0 whatever is announced
        boards.cooling("glm", 5_000);
        settings.set(with(LOCKOUT_ON, new ProviderCooldownSettings(false, D.minRetryCooldownMs(), D.maxRetryCooldownMs(),
                D.oauth(), D.apikey(), D.local())));
        assertThat(b.providerRemainingMs("glm", ProviderClass.APIKEY)).isZero();
    }

    @Test
    void aSuccessWhoseDecayEndsTheLockWithdrawsTheAnnouncement_NF6_ML3() {
        ModelLockouts a = instance();
        ModelLockouts b = instance();
        a.recordFailure(LockoutFailure.builder("codex", "c1", "o3").failure(FailureReason.SERVER_ERROR, 502).build());
        assertThat(b.blocking("codex", "c1", "o3", null)).isNotNull();
        // one failure: one success halves the count to 0, which ends the lock before its timer
        a.onSuccess("codex", "c1", "o3", null);
        assertThat(a.blocking("codex", "c1", "o3", null)).isNull();
        assertThat(b.blocking("codex", "c1", "o3", null)).as("the shared lock went with it").isNull();
    }

    @Test
    void aResetOfEveryWindowWithdrawsEveryAnnouncedProviderCooldown_NF6_PC2() {
        ProviderCooldowns a = SharedProviderCooldowns.over(ProviderCooldowns.local(clock, settings::get), boards, ClusterEvents.NONE, settings::get);
        ProviderCooldowns b = SharedProviderCooldowns.over(ProviderCooldowns.local(clock, settings::get), boards, ClusterEvents.NONE, settings::get);
        for (int i = 0; i < WINDOW_ON.apikey().failureThreshold(); i++) {
            a.recordFailure("glm", ProviderClass.APIKEY, null);
        }
        assertThat(b.providerRemainingMs("glm", ProviderClass.APIKEY)).isPositive();
        b.clear();
        assertThat(a.providerRemainingMs("glm", ProviderClass.APIKEY)).as("A's own window is A's (the event channel clears it)").isPositive();
        assertThat(boards.windowUntil).isEmpty();
    }

    @Test
    void withoutABoardNothingIsAskedAndBehaviourIsAsOnOneInstance_NF6() {
        assertThat(LockoutBoard.NONE.shared()).isFalse();
        assertThat(WindowBoard.NONE.shared()).isFalse();
        ModelLockouts own = ModelLockouts.local(clock, settings::get);
        assertThat(own.query("codex", "gpt-5.1", "gpt-5")).isSameAs(ModelLockouts.Query.NONE);
    }
}
