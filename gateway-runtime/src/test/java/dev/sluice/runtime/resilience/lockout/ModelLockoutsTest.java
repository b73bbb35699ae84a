package dev.sluice.runtime.resilience.lockout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Model lockout (SPEC §11, ML-1 … ML-5). */
class ModelLockoutsTest {

    private static final long BASE = 120_000;
    private static final long MAX = 1_800_000;
    private static final ModelLockoutSettings ON = new ModelLockoutSettings(true,
            List.of(403, 404, 429, 502, 503, 504), BASE, MAX, 10, true);

    private final TestClock clock = TestClock.create();
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(with(ON));
    private final LocalModelLockouts lockouts = new LocalModelLockouts(clock, settings::get);

    private static ResilienceSettings with(ModelLockoutSettings ml) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        return ResilienceSettings.of(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(),
                d.streamStallCooldown(), ml);
    }

    private long now() {
        return clock.millis();
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    /** A 429 on codex gpt-5.1 of connection c1, family gpt-5, scope resolved by status. */
    private ModelLockout quota429(String conn, String model) {
        return lockouts.recordFailure(LockoutFailure.builder("codex", conn, model).family("gpt-5")
                .failure(FailureReason.QUOTA_EXHAUSTED, 429).build());
    }

    private ModelLockout fail(int status, Long hint, boolean authoritative, Long declared) {
        return lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .scope(LockScope.MODEL).failure(FailureReason.RATE_LIMIT_EXCEEDED, status).hint(hint, authoritative)
                .declaredCooldownMs(declared).build());
    }

    /** {@code n} failures, each the moment the previous lock ended (a repeat); returns the last. */
    private ModelLockout escalate(int n) {
        ModelLockout l = fail(429, null, false, null);
        for (int i = 1; i < n; i++) {
            advance(l.expiresAt() - now());
            l = fail(429, null, false, null);
        }
        return l;
    }

    // ------------------------------------------------------------------ ML-2 defaults and the switch

    @Test
    void defaultsAreTheSpecTable_ML2() {
        ModelLockoutSettings d = ResilienceSettings.DEFAULTS.modelLockout();
        assertThat(d.enabled()).isFalse();
        assertThat(d.errorCodes()).containsExactly(403, 404, 429, 502, 503, 504);
        assertThat(d.baseCooldownMs()).isEqualTo(120_000L);
        assertThat(d.maxCooldownMs()).isEqualTo(1_800_000L);
        assertThat(d.maxBackoffSteps()).isEqualTo(10);
        assertThat(d.useExponentialBackoff()).isTrue();
        assertThat(LockoutSweeper.THRESHOLD).isEqualTo(10_000);
    }

    @Test
    void offByDefaultRecordsNothing_ML2() {
        LocalModelLockouts off = new LocalModelLockouts(clock, () -> ResilienceSettings.DEFAULTS);
        assertThat(off.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .scope(LockScope.MODEL).failure(FailureReason.QUOTA_EXHAUSTED, 429).hint(600_000L, true)
                .build())).isNull();
        assertThat(off.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
        assertThat(off.active()).isEmpty();
        assertThat(off.activeCount()).isZero();
        assertThat(off.hasAny("c1")).isFalse();
        assertThat(off.storedEntries()).isZero();
    }

    @Test
    void onLocksAndBlocks_ML2() {
        ModelLockout l = quota429("c1", "gpt-5.1");
        assertThat(l).isEqualTo(new ModelLockout("codex", "c1", "gpt-5", LockScope.MODEL,
                FailureReason.QUOTA_EXHAUSTED, now(), now() + BASE, 1));
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(l);
        assertThat(lockouts.activeCount()).isEqualTo(1);
        assertThat(lockouts.hasAny("c1")).isTrue();
        assertThat(lockouts.hasAny("c2")).isFalse();
    }

    @Test
    void theListenerHearsEveryLockPutInForceAndEveryLockASuccessEndsEarly_issue35() {
        List<String> heard = new ArrayList<>();
        lockouts.listen(new LockoutListener() {
            @Override
            public void inForce(LockoutKind kind, ModelLockout lock, long now) {
                heard.add("in force " + kind + " " + lock.model() + " " + (lock.expiresAt() - now));
            }

            @Override
            public void endedEarly(LockoutKind kind, ModelLockout lock, long now) {
                heard.add("ended " + kind + " " + lock.model() + " " + (lock.expiresAt() - now));
            }
        });
        quota429("c1", "gpt-5.1");
        clock.advance(Duration.ofMillis(1_000));
        quota429("c1", "gpt-5.2"); // absorbed: the lock in force, told again with what it has left
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "O3").failure(FailureReason.SERVER_ERROR, 503).build());
        lockouts.lockForRetryInfo("codex", "c2", "Gemini-X", FailureReason.RATE_LIMIT_EXCEEDED, 600_000);
        lockouts.onSuccess("codex", "c1", "o3", null);
        lockouts.onSuccess("codex", "c1", "gpt-5.1", null); // no family given: the family lock stays
        assertThat(heard).containsExactly("in force FAMILY gpt-5 " + BASE, "in force FAMILY gpt-5 " + (BASE - 1_000),
                "in force EXACT o3 " + BASE, "in force RETRY_INFO gemini-x 600000", "ended EXACT o3 " + BASE);
        assertThatThrownBy(() -> lockouts.listen(LockoutListener.NONE)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aSuccessThatDecaysAnExpiredLockTellsNothing_issue35() {
        List<String> heard = new ArrayList<>();
        lockouts.listen(new LockoutListener() {
            @Override
            public void endedEarly(LockoutKind kind, ModelLockout lock, long now) {
                heard.add(lock.model());
            }
        });
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "o3").failure(FailureReason.SERVER_ERROR, 503).build());
        clock.advance(Duration.ofMillis(BASE)); // ended, still inside its escalation window
        lockouts.onSuccess("codex", "c1", "o3", null);
        assertThat(lockouts.storedEntries()).as("the decay deleted it").isZero();
        assertThat(heard).as("it had ended on its own").isEmpty();
    }

    @Test
    void statusOutsideErrorCodesIsIgnored_ML2() {
        assertThat(fail(500, null, false, null)).isNull();
        assertThat(fail(402, null, false, null)).isNull(); // ML-1 scopes 402, but it is not a default error code
        assertThat(fail(401, null, false, null)).isNull();
        assertThat(lockouts.storedEntries()).isZero();
        settings.set(with(new ModelLockoutSettings(true, List.of(402, 500), BASE, MAX, 10, true)));
        assertThat(fail(500, null, false, null)).isNotNull();
        assertThat(fail(429, null, false, null)).isNull();
    }

    @Test
    void turningTheSwitchOffStopsEnforcementLive_ML2() {
        quota429("c1", "gpt-5.1");
        settings.set(with(ResilienceSettings.DEFAULTS.modelLockout()));
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
        assertThat(lockouts.active()).isEmpty();
        assertThat(lockouts.activeCount()).isZero();
        assertThat(lockouts.hasAny("c1")).isFalse();
        assertThat(quota429("c1", "gpt-5.2")).isNull();
        settings.set(with(ON));
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNotNull();
    }

    // ------------------------------------------------------------------ ML-1 scope

    @Test
    void quotaAndEntitlementStatusesLockTheFamily_ML1() {
        assertThat(ModelLockouts.resolveScope(429, null)).isEqualTo(LockScope.MODEL);
        assertThat(ModelLockouts.resolveScope(403, null)).isEqualTo(LockScope.MODEL);
        assertThat(ModelLockouts.resolveScope(402, null)).isEqualTo(LockScope.MODEL);
    }

    @Test
    void notFoundLocksTheBaseModel_ML1() {
        assertThat(ModelLockouts.resolveScope(404, null)).isEqualTo(LockScope.MODEL);
    }

    @Test
    void everyOtherStatusLocksTheExactModel_ML1() {
        for (int status : new int[] {500, 502, 503, 504, 408, 400, 401, 0}) {
            assertThat(ModelLockouts.resolveScope(status, null)).as("status %d", status).isEqualTo(LockScope.EXACT);
        }
    }

    @Test
    void anExplicitModelScopeWins_ML1() {
        assertThat(ModelLockouts.resolveScope(429, LockScope.EXACT)).isEqualTo(LockScope.EXACT);
        assertThat(ModelLockouts.resolveScope(404, LockScope.EXACT)).isEqualTo(LockScope.EXACT);
        assertThat(ModelLockouts.resolveScope(503, LockScope.MODEL)).isEqualTo(LockScope.MODEL);
        assertThat(ModelLockouts.resolveScope(503, LockScope.CONNECTION)).isEqualTo(LockScope.EXACT);
        assertThat(ModelLockouts.resolveScope(429, LockScope.PROVIDER)).isEqualTo(LockScope.MODEL);
    }

    @Test
    void aFamilyLockBlocksEveryModelOfTheFamilyOnThatConnectionOnly_ML1_ML4() {
        ModelLockout l = quota429("c1", "gpt-5.1");
        assertThat(l.model()).isEqualTo("gpt-5");
        assertThat(l.key()).isEqualTo("codex:c1:gpt-5");
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.2-codex", "gpt-5")).isEqualTo(l);
        assertThat(lockouts.blocking("codex", "c1", "o3", null)).isNull();
        assertThat(lockouts.blocking("codex", "c1", "o3", "o-series")).isNull();
        assertThat(lockouts.blocking("codex", "c2", "gpt-5.1", "gpt-5")).isNull();
        assertThat(lockouts.blocking("openai", "c1", "gpt-5.1", "gpt-5")).isNull();
    }

    @Test
    void withoutAFamilyTheModelItselfIsLocked_ML1_ML4() {
        ModelLockout l = lockouts.recordFailure(LockoutFailure.builder("glm", "c1", "glm-4.6")
                .failure(FailureReason.QUOTA_EXHAUSTED, 429).build());
        assertThat(l.key()).isEqualTo("glm:c1:glm-4.6");
        assertThat(lockouts.blocking("glm", "c1", "glm-4.6", null)).isEqualTo(l);
        assertThat(lockouts.blocking("glm", "c1", "glm-4.5", null)).isNull();
    }

    @Test
    void notFoundLocksTheBaseModelNeverItsFamily_ML1_ML4() {
        ModelLockout l = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        assertThat(l.scope()).isEqualTo(LockScope.MODEL);
        assertThat(l.key()).isEqualTo("codex:c1:gpt-5.1");
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(l);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.2", "gpt-5")).isNull();
        ModelLockout local = lockouts.recordFailure(LockoutFailure.builder("ollama", "c9", "Qwen3").family("qwen")
                .scope(LockScope.MODEL).failure(FailureReason.NOT_FOUND_LOCAL, 404).build());
        assertThat(local.key()).isEqualTo("ollama:c9:Qwen3");
    }

    @Test
    void serverFailuresLockOnlyTheExactLowerCasedModel_ML1_ML4() {
        ModelLockout l = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "GPT-5.1-Luna").family("gpt-5")
                .failure(FailureReason.QUALITY_FAILURE, 502).build());
        assertThat(l.scope()).isEqualTo(LockScope.EXACT);
        assertThat(l.model()).isEqualTo("gpt-5.1-luna");
        assertThat(l.key()).isEqualTo("codex:c1:exact:gpt-5.1-luna");
        assertThat(lockouts.blocking("codex", "c1", "GPT-5.1-Luna", "gpt-5")).isEqualTo(l);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1-luna", "gpt-5")).isEqualTo(l);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
    }

    @Test
    void anExplicitExactScopeOnA429LocksOnlyThatModel_ML1() {
        ModelLockout l = lockouts.recordFailure(LockoutFailure.builder("antigravity", "c1", "gemini-3-pro")
                .family("gemini").scope(LockScope.EXACT).failure(FailureReason.QUOTA_EXHAUSTED, 429).build());
        assertThat(l.key()).isEqualTo("antigravity:c1:exact:gemini-3-pro");
        assertThat(lockouts.blocking("antigravity", "c1", "gemini-3-flash", "gemini")).isNull();
    }

    @Test
    void blockingReturnsTheKeyThatEndsLast_ML4() {
        quota429("c1", "gpt-5.1");
        ModelLockout exact = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.SERVER_ERROR, 503).hint(600_000L, true).build());
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(exact);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.2", "gpt-5").expiresAt()).isEqualTo(now() + BASE);
    }

    // ------------------------------------------------------------------ ML-2 duration

    @Test
    void repeatsEscalateExponentiallyUpToTheCap_ML2() {
        long[] expected = {120_000, 240_000, 480_000, 960_000, 1_800_000, 1_800_000};
        for (int i = 0; i < expected.length; i++) {
            ModelLockout l = fail(429, null, false, null);
            assertThat(l.failureCount()).isEqualTo(i + 1);
            assertThat(l.expiresAt() - now()).as("failure %d", i + 1).isEqualTo(expected[i]);
            advance(l.expiresAt() - now()); // the next failure comes the moment the lock ends
        }
    }

    @Test
    void maxBackoffStepsLimitsTheDoublings_ML2() {
        settings.set(with(new ModelLockoutSettings(true, List.of(429), 10_000, 3_600_000, 2, true)));
        long[] expected = {10_000, 20_000, 40_000, 40_000, 40_000};
        for (long e : expected) {
            ModelLockout l = fail(429, null, false, null);
            assertThat(l.expiresAt() - now()).isEqualTo(e);
            advance(l.expiresAt() - now());
        }
        assertThat(fail(429, null, false, null).failureCount()).isEqualTo(6);
        settings.set(with(new ModelLockoutSettings(true, List.of(429), 10_000, 3_600_000, 0, true)));
        ModelLockout absorbed = fail(429, null, false, null); // in force: the new settings do not shorten it
        assertThat(absorbed.expiresAt() - now()).isEqualTo(40_000);
        assertThat(absorbed.failureCount()).isEqualTo(6);
        advance(40_000);
        ModelLockout next = fail(429, null, false, null);
        assertThat(next.failureCount()).isEqualTo(7);
        assertThat(next.expiresAt() - now()).isEqualTo(10_000);
    }

    @Test
    void withoutExponentialBackoffEveryRepeatIsTheBase_ML2() {
        settings.set(with(new ModelLockoutSettings(true, List.of(429), BASE, MAX, 10, false)));
        for (int i = 1; i <= 4; i++) {
            ModelLockout l = fail(429, null, false, null);
            assertThat(l.failureCount()).isEqualTo(i);
            assertThat(l.expiresAt() - now()).isEqualTo(BASE);
            advance(BASE);
        }
    }

    @Test
    void aFailureMoreThanOneBaseAfterTheLockEndedStartsOver_ML3() {
        ModelLockout first = fail(429, null, false, null);
        advance(BASE + BASE); // lock ended BASE ago: still a repeat (inclusive)
        ModelLockout second = fail(429, null, false, null);
        assertThat(second.failureCount()).isEqualTo(2);
        assertThat(second.expiresAt() - now()).isEqualTo(240_000);
        advance(240_000 + BASE + 1);
        ModelLockout third = fail(429, null, false, null);
        assertThat(third.failureCount()).isEqualTo(1);
        assertThat(third.expiresAt() - now()).isEqualTo(BASE);
        assertThat(first.lockedAt()).isLessThan(third.lockedAt());
    }

    @Test
    void aHintLongerThanTheBaseWins_ML2() {
        assertThat(fail(429, 300_000L, false, null).expiresAt() - now()).isEqualTo(300_000);
    }

    @Test
    void aHintNoLongerThanTheBaseIsIgnored_ML2() {
        assertThat(fail(429, BASE, false, null).expiresAt() - now()).isEqualTo(BASE);
        advance(BASE);
        assertThat(fail(429, 5_000L, false, null).expiresAt() - now()).isEqualTo(240_000); // the backoff
    }

    @Test
    void aNonAuthoritativeHintIsClampedToTheMax_ML2() {
        assertThat(fail(429, 7_200_000L, false, null).expiresAt() - now()).isEqualTo(MAX);
    }

    @Test
    void anAuthoritativeHintMayExceedTheMax_ML2() {
        assertThat(fail(429, 7_200_000L, true, null).expiresAt() - now()).isEqualTo(7_200_000);
    }

    @Test
    void aDeclaredCooldownIsClampedToTheMaxAndLosesToALongerHint_ML2() {
        assertThat(LockoutPolicy.cooldownMs(ON, 1, null, false, 21_600_000L)).isEqualTo(MAX);
        assertThat(LockoutPolicy.cooldownMs(ON, 1, null, false, 60_000L)).isEqualTo(60_000);
        assertThat(LockoutPolicy.cooldownMs(ON, 5, 30_000L, true, 60_000L)).isEqualTo(60_000);
        assertThat(LockoutPolicy.cooldownMs(ON, 1, 900_000L, false, 60_000L)).isEqualTo(900_000);
        assertThat(LockoutPolicy.cooldownMs(ON, 1, null, false, 0L)).isEqualTo(BASE);
        assertThat(fail(403, null, false, 21_600_000L).expiresAt() - now()).isEqualTo(MAX);
    }

    @Test
    void theBackoffFormulaSaturatesInsteadOfOverflowing_ML2() {
        ModelLockoutSettings huge = new ModelLockoutSettings(true, List.of(429), BASE, Long.MAX_VALUE, 100, true);
        assertThat(LockoutPolicy.cooldownMs(huge, 101, null, false, null)).isEqualTo(Long.MAX_VALUE);
        assertThat(LockoutPolicy.cooldownMs(huge, 11, null, false, null)).isEqualTo(BASE << 10);
        assertThat(LockoutPolicy.cooldownMs(ON, 1, Long.MAX_VALUE, true, null)).isEqualTo(Long.MAX_VALUE);
        assertThat(fail(429, Long.MAX_VALUE, true, null).expiresAt()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aShorterLockNeverShortensALongerOne_ML2() {
        ModelLockout longLock = fail(429, 3_600_000L, true, null);
        advance(60_000);
        ModelLockout again = fail(429, null, false, null); // in force: absorbed, nothing changes
        assertThat(again).isEqualTo(longLock);
        assertThat(fail(429, 600_000L, false, null)).isEqualTo(longLock); // a shorter hint neither
        assertThat(fail(403, null, false, 900_000L)).isEqualTo(longLock); // nor a shorter declared cooldown
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(longLock);
    }

    @Test
    void theLockEndsExactlyAtExpiresAt_ML2() {
        ModelLockout l = fail(429, null, false, null);
        advance(BASE - 1);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(l);
        assertThat(l.remainingMs(now())).isEqualTo(1);
        advance(1);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
        assertThat(lockouts.active()).isEmpty();
        assertThat(lockouts.storedEntries()).isEqualTo(1); // kept for the escalation window
        advance(BASE + 1);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull();
        assertThat(lockouts.storedEntries()).isZero(); // removed by the read that met it
    }

    // ------------------------------------------------------------------ ML-3 success decay

    @Test
    void successHalvesTheCountAndDeletesAtZero_ML3() {
        escalate(8);
        ModelLockout locked = lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5");
        assertThat(locked.failureCount()).isEqualTo(8);
        assertThat(locked.expiresAt() - now()).isEqualTo(MAX);
        for (int expected : new int[] {4, 2, 1}) {
            lockouts.onSuccess("codex", "c1", "gpt-5.1", "gpt-5");
            ModelLockout l = lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5");
            assertThat(l.failureCount()).isEqualTo(expected);
            assertThat(l.expiresAt()).isEqualTo(locked.expiresAt()); // decay does not shorten the timer
        }
        lockouts.onSuccess("codex", "c1", "gpt-5.1", "gpt-5");
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isNull(); // usable before its timer
        assertThat(now()).isLessThan(locked.expiresAt());
        assertThat(lockouts.storedEntries()).isZero();
        assertThat(lockouts.hasAny("c1")).isFalse();
    }

    @Test
    void aDecayedModelStopsEscalating_ML3() {
        assertThat(escalate(4).expiresAt() - now()).isEqualTo(960_000);
        lockouts.onSuccess("codex", "c1", "gpt-5.1", "gpt-5"); // 4 → 2
        advance(960_000); // the moment the lock ends: a repeat
        ModelLockout next = fail(429, null, false, null);
        assertThat(next.failureCount()).isEqualTo(3);
        assertThat(next.expiresAt() - now()).isEqualTo(480_000);
        lockouts.onSuccess("codex", "c1", "gpt-5.1", "gpt-5"); // 3 → 1
        lockouts.onSuccess("codex", "c1", "gpt-5.1", "gpt-5"); // 1 → 0: deleted
        ModelLockout fresh = fail(429, null, false, null);
        assertThat(fresh.failureCount()).isEqualTo(1);
        assertThat(fresh.expiresAt() - now()).isEqualTo(BASE);
    }

    @Test
    void successDecaysTheFamilyTheModelAndTheExactKeys_ML3() {
        quota429("c1", "gpt-5.1");
        advance(BASE);
        assertThat(quota429("c1", "gpt-5.2").failureCount()).isEqualTo(2); // a repeat on the family key
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "GPT-5.1").family("gpt-5")
                .failure(FailureReason.SERVER_ERROR, 503).build());
        assertThat(lockouts.storedEntries()).isEqualTo(3);
        lockouts.onSuccess("codex", "c1", "gpt-5.1", "gpt-5");
        assertThat(lockouts.active()).extracting(ModelLockout::key, ModelLockout::failureCount)
                .containsExactly(tuple("codex:c1:gpt-5", 1));
        lockouts.onSuccess("codex", "c2", "gpt-5.1", "gpt-5"); // another connection: nothing
        lockouts.onSuccess("codex", "c1", "o3", null); // another model: nothing
        assertThat(lockouts.activeCount()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ ML-5 listing and clearing

    @Test
    void activeListsUnexpiredLockoutsSoonestFirst_ML5() {
        ModelLockout b = lockouts.recordFailure(LockoutFailure.builder("glm", "c2", "glm-4.6")
                .failure(FailureReason.QUOTA_EXHAUSTED, 429).hint(600_000L, false).build());
        ModelLockout a = quota429("c1", "gpt-5.1");
        ModelLockout c = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "o3")
                .failure(FailureReason.SERVER_ERROR, 503).hint(900_000L, false).build());
        assertThat(lockouts.active()).containsExactly(a, b, c);
        assertThat(lockouts.activeCount()).isEqualTo(3);
        advance(BASE);
        assertThat(lockouts.active()).containsExactly(b, c);
        assertThat(lockouts.activeCount()).isEqualTo(2);
    }

    @Test
    void clearReEnablesOneKeyModel_ML5() {
        quota429("c1", "gpt-5.1");
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "GPT-5.1-Luna")
                .failure(FailureReason.SERVER_ERROR, 503).build());
        assertThat(lockouts.clear("codex", "c1", "gpt-5.1")).isFalse(); // a member, not the key model
        assertThat(lockouts.clear("codex", "c2", "gpt-5")).isFalse();
        assertThat(lockouts.clear("openai", "c1", "gpt-5")).isFalse();
        assertThat(lockouts.clear("codex", "c1", "gpt-5")).isTrue();
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.2", "gpt-5")).isNull();
        assertThat(lockouts.clear("codex", "c1", "gpt-5.1-luna")).isTrue();
        assertThat(lockouts.clear("codex", "c1", "gpt-5")).isFalse();
        assertThat(lockouts.storedEntries()).isZero();
    }

    @Test
    void clearIsCaseInsensitiveForExactLocks_ML5() {
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1-luna")
                .failure(FailureReason.SERVER_ERROR, 503).build());
        assertThat(lockouts.clear("codex", "c1", "GPT-5.1-LUNA")).isTrue();
    }

    @Test
    void clearConnectionAndClearAllCountUnexpiredLockouts_ML5() {
        quota429("c1", "gpt-5.1");
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "o3").failure(FailureReason.SERVER_ERROR, 503)
                .hint(600_000L, false).build());
        quota429("c2", "gpt-5.1");
        quota429("c3", "gpt-5.1");
        advance(BASE); // c1's family lock, c2 and c3 expire; c1's o3 lock remains
        assertThat(lockouts.clearConnection("c1")).isEqualTo(1);
        assertThat(lockouts.clearConnection("c1")).isZero();
        assertThat(lockouts.hasAny("c1")).isFalse();
        quota429("c2", "gpt-5.1");
        assertThat(lockouts.clearAll()).isEqualTo(1);
        assertThat(lockouts.storedEntries()).isZero();
        assertThat(lockouts.active()).isEmpty();
    }

    // ------------------------------------------------------------------ memory and concurrency

    @Test
    void aWriteSweepsEntriesPastTheirWindowWhenTheMapGrows_ML4() {
        for (int i = 0; i < LockoutSweeper.THRESHOLD; i++) {
            lockouts.recordFailure(LockoutFailure.builder("p", "c" + (i % 1_000), "m" + i)
                    .failure(FailureReason.SERVER_ERROR, 503).build());
        }
        assertThat(lockouts.storedEntries()).isEqualTo(10_000);
        advance(BASE + BASE + 1); // every entry is past its escalation window
        quota429("fresh", "gpt-5.1"); // 10 001 stored: the write sweeps
        assertThat(lockouts.storedEntries()).isEqualTo(1);
        assertThat(lockouts.activeCount()).isEqualTo(1);
    }

    @Test
    void theSweepNeverDropsUnexpiredLocks_ML4() {
        for (int i = 0; i <= LockoutSweeper.THRESHOLD; i++) {
            lockouts.recordFailure(LockoutFailure.builder("p", "c" + (i % 1_000), "m" + i)
                    .failure(FailureReason.SERVER_ERROR, 503).build());
        }
        assertThat(lockouts.storedEntries()).isEqualTo(10_001);
        assertThat(lockouts.activeCount()).isEqualTo(10_001);
        assertThat(lockouts.blocking("p", "c0", "m0", null)).isNotNull();
    }

    @Test
    void concurrentFailuresAndSuccessesStayConsistent_ML2_ML4() throws Exception {
        int threads = 8;
        int perThread = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    quota429("shared", "gpt-5.1"); // one key, all threads
                    lockouts.recordFailure(LockoutFailure.builder("p", "c" + (i % 50), "t" + id + "-m" + i)
                            .failure(FailureReason.SERVER_ERROR, 503).build());
                    lockouts.blocking("p", "c" + (i % 50), "t" + id + "-m" + i, null);
                    lockouts.onSuccess("p", "c" + (i % 50), "t" + id + "-m" + i, null); // count 1 → deleted
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        // one burst (the clock stands still): every failure after the first is absorbed
        ModelLockout shared = lockouts.blocking("codex", "shared", "gpt-5.1", "gpt-5");
        assertThat(shared.failureCount()).isEqualTo(1);
        assertThat(shared.expiresAt() - now()).isEqualTo(BASE);
        assertThat(lockouts.storedEntries()).isEqualTo(1);
        assertThat(lockouts.activeCount()).isEqualTo(1);
        assertThat(lockouts.hasAny("c0")).isFalse();
    }

    @Test
    void theRequestQueryAgreesWithBlockingAcrossClearsAndNewLocks_ML4_NF3() {
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c1")).isNull();
        quota429("c1", "gpt-5.1");
        ModelLockouts.Query q = lockouts.query("codex", "gpt-5.1", "gpt-5");
        assertThat(q.blocking("c1")).isNotNull();
        assertThat(q.blocking("c2")).isNull();
        assertThat(lockouts.query("codex", "o3", null).blocking("c1")).isNull();
        assertThat(lockouts.clear("codex", "c1", "gpt-5")).isTrue();
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c1")).isNull();
        // a lock recorded after the index entry was pruned is seen again
        quota429("c1", "gpt-5.1");
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c1")).isNotNull();
        settings.set(ResilienceSettings.DEFAULTS);
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c1")).isNull();
    }

    // ------------------------------------------------------------------ bursts (the CC-3 herd rule for model locks)

    @Test
    void failuresWhileTheLockIsInForceAreOneBurstAndDoNotEscalate_ML2_ML3() {
        ModelLockout first = fail(429, null, false, null);
        for (int i = 0; i < 4; i++) { // five concurrent 429s
            assertThat(fail(429, null, false, null)).isEqualTo(first);
        }
        advance(BASE - 1); // still in force: absorbed, including the reason
        ModelLockout late = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.QUOTA_EXHAUSTED, 403).build());
        assertThat(late).isEqualTo(first);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(first);
        assertThat(lockouts.storedEntries()).isEqualTo(1);
        advance(1); // the lock ended: the next failure is a repeat and escalates one step
        ModelLockout repeat = fail(429, null, false, null);
        assertThat(repeat.failureCount()).isEqualTo(2);
        assertThat(repeat.lockedAt()).isEqualTo(now());
        assertThat(repeat.expiresAt() - now()).isEqualTo(240_000);
    }

    @Test
    void aLongerHintOrDeclaredCooldownDuringTheLockExtendsItWithoutEscalating_ML2() {
        ModelLockout first = fail(429, null, false, null);
        advance(30_000);
        ModelLockout hinted = fail(429, 600_000L, false, null);
        assertThat(hinted).isEqualTo(new ModelLockout("codex", "c1", "gpt-5", LockScope.MODEL,
                FailureReason.RATE_LIMIT_EXCEEDED, now(), now() + 600_000, 1));
        advance(30_000);
        ModelLockout declared = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .scope(LockScope.MODEL).failure(FailureReason.QUOTA_EXHAUSTED, 403).declaredCooldownMs(21_600_000L)
                .build()); // clamped to the max
        assertThat(declared).isEqualTo(new ModelLockout("codex", "c1", "gpt-5", LockScope.MODEL,
                FailureReason.QUOTA_EXHAUSTED, now(), now() + MAX, 1));
        assertThat(first.lockedAt()).isEqualTo(now() - 60_000);
        advance(MAX); // ended: the repeat escalates from the count of the burst, 1
        ModelLockout repeat = fail(429, null, false, null);
        assertThat(repeat.failureCount()).isEqualTo(2);
        assertThat(repeat.expiresAt() - now()).isEqualTo(240_000);
    }

    @Test
    void aBurstOnOneKeyLeavesTheOtherKeysOfTheModelAlone_ML2_ML4() {
        quota429("c1", "gpt-5.1");
        ModelLockout exact = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.SERVER_ERROR, 503).build());
        assertThat(exact.failureCount()).isEqualTo(1); // its own key: a first failure, not absorbed by the family lock
        assertThat(quota429("c2", "gpt-5.1").failureCount()).isEqualTo(1);
        assertThat(lockouts.storedEntries()).isEqualTo(3);
    }

    // ------------------------------------------------------------------ family and model keys stay apart

    @Test
    void aNotFoundOnTheModelNamedLikeItsFamilyLocksOnlyThatModel_ML1_ML4() {
        ModelLockout notFound = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        assertThat(notFound).isEqualTo(new ModelLockout("codex", "c1", "gpt-5", LockScope.MODEL, FailureReason.NOT_FOUND,
                now(), now() + BASE, 1));
        assertThat(lockouts.blocking("codex", "c1", "gpt-5", "gpt-5")).isEqualTo(notFound);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5-mini", "gpt-5")).isNull();
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1-codex", "gpt-5")).isNull();
        assertThat(lockouts.query("codex", "gpt-5-mini", "gpt-5").blocking("c1")).isNull();
    }

    @Test
    void aFamilyLockAndAModelLockOfTheSameNameAreTwoLocks_ML1_ML4() {
        ModelLockout familyLock = quota429("c1", "gpt-5.1"); // family gpt-5
        advance(10_000);
        ModelLockout modelLock = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        assertThat(modelLock.failureCount()).isEqualTo(1); // not absorbed by, nor escalating, the family lock
        assertThat(modelLock.reason()).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(lockouts.active()).containsExactly(familyLock, modelLock);
        assertThat(lockouts.activeCount()).isEqualTo(2);
        // the model gpt-5 is blocked by both: the one that ends last answers
        assertThat(lockouts.blocking("codex", "c1", "gpt-5", "gpt-5")).isEqualTo(modelLock);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.2", "gpt-5")).isEqualTo(familyLock);
        // a success on gpt-5 decays both keys of that model; on gpt-5.2 only the family
        lockouts.onSuccess("codex", "c1", "gpt-5.2", "gpt-5");
        assertThat(lockouts.active()).containsExactly(modelLock);
        lockouts.onSuccess("codex", "c1", "gpt-5", "gpt-5");
        assertThat(lockouts.active()).isEmpty();
        assertThat(lockouts.storedEntries()).isZero();
    }

    @Test
    void clearingByTheSharedNameClearsTheFamilyAndTheModelLock_ML5() {
        quota429("c1", "gpt-5.1");
        lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        assertThat(lockouts.clear("codex", "c1", "gpt-5")).isTrue();
        assertThat(lockouts.active()).isEmpty();
        assertThat(lockouts.storedEntries()).isZero();
        assertThat(lockouts.clear("codex", "c1", "gpt-5")).isFalse();
    }

    @Test
    void clearingByFamilyOrByModelNameClearsOnlyThatLock_ML5() {
        ModelLockout familyLock = quota429("c1", "gpt-5.1");
        ModelLockout modelLock = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        assertThat(lockouts.clear("codex", "c1", "gpt-5.1")).isTrue();
        assertThat(lockouts.active()).containsExactly(familyLock);
        ModelLockout again = lockouts.recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.NOT_FOUND, 404).build());
        assertThat(again).isEqualTo(modelLock);
        assertThat(lockouts.clear("codex", "c1", "gpt-5")).isTrue();
        assertThat(lockouts.active()).containsExactly(modelLock);
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.2", "gpt-5")).isNull();
        assertThat(lockouts.blocking("codex", "c1", "gpt-5.1", "gpt-5")).isEqualTo(modelLock);
    }

    // ------------------------------------------------------------------ the request query (NF-3)

    @Test
    void aQueryAnswersAtTheTimeItWasMadeOrAtAGivenTime_NF3() {
        ModelLockout l = quota429("c1", "gpt-5.1");
        ModelLockouts.Query q = lockouts.query("codex", "gpt-5.1", "gpt-5");
        advance(BASE);
        assertThat(q.blocking("c1")).isEqualTo(l); // the request's snapshot time
        assertThat(q.blocking("c1", now())).isNull();
        assertThat(q.blocking("c1", now() - 1)).isEqualTo(l);
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c1")).isNull();
        assertThat(lockouts.storedEntries()).isEqualTo(1); // expired, kept for the escalation window
        advance(BASE + 1);
        assertThat(q.blocking("c1", now())).isNull(); // past the window: the read drops it
        assertThat(lockouts.storedEntries()).isZero();
    }

    @Test
    void aQueryNeverReportsALockClearedOrDecayedAfterItWasMade_ML3_ML5_NF3() {
        quota429("c1", "gpt-5.1");
        quota429("c2", "gpt-5.1");
        lockouts.recordFailure(LockoutFailure.builder("codex", "c3", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.SERVER_ERROR, 503).build());
        ModelLockouts.Query q = lockouts.query("codex", "gpt-5.1", "gpt-5");
        assertThat(q.blocking("c1")).isNotNull();
        assertThat(q.blocking("c2")).isNotNull();
        assertThat(q.blocking("c3")).isNotNull();
        lockouts.clear("codex", "c1", "gpt-5");
        lockouts.onSuccess("codex", "c2", "gpt-5.1", "gpt-5");
        lockouts.clearConnection("c3");
        assertThat(q.blocking("c1")).isNull();
        assertThat(q.blocking("c2")).isNull();
        assertThat(q.blocking("c3")).isNull();
        // a lock recorded after the query is seen by the next one; clearAll removes it again
        quota429("c4", "gpt-5.2");
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c4")).isNotNull();
        assertThat(lockouts.clearAll()).isEqualTo(1);
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5").blocking("c4")).isNull();
        assertThat(lockouts.storedEntries()).isZero();
    }

    @Test
    void aQueryWithNothingLockedOrLockoutOffIsTheSharedEmptyOne_ML2_NF3() {
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5")).isSameAs(ModelLockouts.Query.NONE);
        quota429("c1", "gpt-5.1");
        assertThat(lockouts.query("codex", "o3", null)).isSameAs(ModelLockouts.Query.NONE);
        assertThat(lockouts.query("openai", "gpt-5.1", "gpt-5")).isSameAs(ModelLockouts.Query.NONE);
        settings.set(with(ResilienceSettings.DEFAULTS.modelLockout()));
        assertThat(lockouts.query("codex", "gpt-5.1", "gpt-5")).isSameAs(ModelLockouts.Query.NONE);
        assertThat(ModelLockouts.Query.NONE.blocking("c1")).isNull();
    }

    @Test
    void locksRecordedWhileReadsDropStaleEntriesAreNeverLost_ML4_NF3() throws Exception {
        int stale = 500;
        for (int i = 0; i < stale; i++) {
            lockouts.recordFailure(LockoutFailure.builder("p", "old-" + i, "m").failure(FailureReason.NOT_FOUND, 404)
                    .build());
        }
        advance(BASE + BASE + 1); // every old entry is past its window; reads will drop them and the key's map
        int writers = 4;
        int readers = 4;
        int perWriter = 500;
        ExecutorService pool = Executors.newFixedThreadPool(writers + readers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < writers; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perWriter; i++) {
                    lockouts.recordFailure(LockoutFailure.builder("p", "new-" + id + "-" + i, "m")
                            .failure(FailureReason.NOT_FOUND, 404).build());
                    // churn on the same key: a lock recorded and cleared again, emptying and refilling the map
                    lockouts.recordFailure(LockoutFailure.builder("p", "churn-" + id, "m")
                            .failure(FailureReason.NOT_FOUND, 404).build());
                    lockouts.clear("p", "churn-" + id, "m");
                }
                return null;
            }));
        }
        for (int t = 0; t < readers; t++) {
            futures.add(pool.submit(() -> {
                start.await();
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < stale; i++) {
                        lockouts.query("p", "m", null).blocking("old-" + i);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        for (int t = 0; t < writers; t++) {
            for (int i = 0; i < perWriter; i++) {
                assertThat(lockouts.query("p", "m", null).blocking("new-" + t + "-" + i)).as("new-%d-%d", t, i).isNotNull();
            }
        }
        for (int i = 0; i < stale; i++) {
            lockouts.blocking("p", "old-" + i, "m", null); // drop what the readers raced past
        }
        assertThat(lockouts.activeCount()).isEqualTo(writers * perWriter);
        assertThat(lockouts.storedEntries()).isEqualTo(writers * perWriter);
    }
}
