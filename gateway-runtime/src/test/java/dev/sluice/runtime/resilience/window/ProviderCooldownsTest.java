package dev.sluice.runtime.resilience.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ProviderCooldownSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.WindowProfile;
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

/** The provider cooldown window gate (SPEC §7, PC-1 … PC-3). */
class ProviderCooldownsTest {

    private static final long MINUTE = 60_000;
    private static final ProviderCooldownSettings D = ResilienceSettings.DEFAULTS.providerCooldown();
    private static final ProviderCooldownSettings ON = new ProviderCooldownSettings(true, D.minRetryCooldownMs(),
            D.maxRetryCooldownMs(), D.oauth(), D.apikey(), D.local());

    private final TestClock clock = TestClock.create();
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(with(ON));
    private final LocalProviderCooldowns cooldowns = new LocalProviderCooldowns(clock, settings::get);

    private static ResilienceSettings with(ProviderCooldownSettings pc) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        return ResilienceSettings.of(d.circuitBreaker(), pc, d.connectionCooldown(), d.streamStallCooldown(),
                d.modelLockout());
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    private void fail(String provider, ProviderClass cls, int times) {
        for (int i = 0; i < times; i++) {
            cooldowns.recordFailure(provider, cls, null);
        }
    }

    // ------------------------------------------------------------------ PC-1 defaults and the switch

    @Test
    void defaultsAreTheSpecValues_PC1_PC2_PC3() {
        assertThat(D.enabled()).isFalse();
        assertThat(D.minRetryCooldownMs()).isEqualTo(5_000L);
        assertThat(D.maxRetryCooldownMs()).isEqualTo(300_000L);
        assertThat(D.oauth()).isEqualTo(new WindowProfile(10, 900_000, 300_000));
        assertThat(D.apikey()).isEqualTo(new WindowProfile(15, 1_800_000, 600_000));
        assertThat(D.local()).isEqualTo(new WindowProfile(2, 300_000, 60_000));
        assertThat(D.forClass(ProviderClass.OAUTH)).isSameAs(D.oauth());
        assertThat(D.forClass(ProviderClass.APIKEY)).isSameAs(D.apikey());
        assertThat(D.forClass(ProviderClass.LOCAL)).isSameAs(D.local());
        assertThat(LocalProviderCooldowns.IDLE_RETENTION_MS).isEqualTo(1_800_000L);
        assertThat(LocalProviderCooldowns.SWEEP_INTERVAL_MS).isEqualTo(60_000L);
        assertThat(LocalProviderCooldowns.MAX_RETRY_EXPONENT).isEqualTo(10);
    }

    @Test
    void offByDefaultRecordsNothing_PC1() {
        LocalProviderCooldowns off = new LocalProviderCooldowns(clock, () -> ResilienceSettings.DEFAULTS);
        for (int i = 0; i < 20; i++) {
            off.recordFailure("claude", ProviderClass.OAUTH, "c1");
        }
        assertThat(off.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
        assertThat(off.connectionRemainingMs("claude", "c1")).isZero();
        assertThat(off.entries()).isEmpty();
        assertThat(off.storedEntries()).isZero();
    }

    @Test
    void turningTheSwitchOffAnswersZeroLive_PC1() {
        for (int i = 0; i < 10; i++) {
            cooldowns.recordFailure("claude", ProviderClass.OAUTH, "c1");
        }
        settings.set(with(D));
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
        assertThat(cooldowns.connectionRemainingMs("claude", "c1")).isZero();
        assertThat(cooldowns.entries()).isEmpty();
        settings.set(with(ON));
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(300_000);
    }

    // ------------------------------------------------------------------ PC-2 window gate

    @Test
    void oauthCoolsFiveMinutesAtTheTenthFailureInFifteenMinutes_PC2() {
        for (int i = 1; i <= 9; i++) {
            cooldowns.recordFailure("claude", ProviderClass.OAUTH, null);
            assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).as("failure %d", i).isZero();
            advance(MINUTE);
        }
        cooldowns.recordFailure("claude", ProviderClass.OAUTH, null);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(300_000);
        advance(299_999);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(1);
        advance(1);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
    }

    @Test
    void apiKeyCoolsTenMinutesAtTheFifteenthFailureInThirtyMinutes_PC2() {
        for (int i = 1; i <= 14; i++) {
            cooldowns.recordFailure("openai", ProviderClass.APIKEY, null);
            assertThat(cooldowns.providerRemainingMs("openai", ProviderClass.APIKEY)).as("failure %d", i).isZero();
            advance(2 * MINUTE);
        }
        cooldowns.recordFailure("openai", ProviderClass.APIKEY, null); // t = 28 min: all 15 inside
        assertThat(cooldowns.providerRemainingMs("openai", ProviderClass.APIKEY)).isEqualTo(600_000);
        advance(600_000);
        assertThat(cooldowns.providerRemainingMs("openai", ProviderClass.APIKEY)).isZero();
    }

    @Test
    void localCoolsOneMinuteAtTheSecondFailureInFiveMinutes_PC2() {
        cooldowns.recordFailure("ollama", ProviderClass.LOCAL, null);
        assertThat(cooldowns.providerRemainingMs("ollama", ProviderClass.LOCAL)).isZero();
        advance(5 * MINUTE - 1);
        cooldowns.recordFailure("ollama", ProviderClass.LOCAL, null);
        assertThat(cooldowns.providerRemainingMs("ollama", ProviderClass.LOCAL)).isEqualTo(60_000);
    }

    @Test
    void failuresOlderThanTheWindowDoNotCount_PC2() {
        fail("claude", ProviderClass.OAUTH, 1); // t = 0
        advance(MINUTE);
        fail("claude", ProviderClass.OAUTH, 8); // t = 1 min
        advance(14 * MINUTE); // t = 15 min: the first failure's age equals the window, so it is out
        fail("claude", ProviderClass.OAUTH, 1);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
        assertThat(cooldowns.entries()).containsExactly(new ProviderCooldownEntry("claude", "claude", null, 9, 0));
        fail("claude", ProviderClass.OAUTH, 1);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(300_000);
    }

    @Test
    void theWindowSlides_PC2() {
        for (int i = 0; i < 30; i++) { // one failure every 2 minutes: at most 8 inside any 15 minutes
            fail("claude", ProviderClass.OAUTH, 1);
            assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
            advance(2 * MINUTE);
        }
        assertThat(cooldowns.entries().get(0).failures()).isEqualTo(7); // 8 inside at the last failure, 2 min ago
    }

    @Test
    void oneSuccessClearsTheWindow_PC2() {
        fail("claude", ProviderClass.OAUTH, 9);
        cooldowns.recordSuccess("claude", null);
        assertThat(cooldowns.entries()).isEmpty();
        fail("claude", ProviderClass.OAUTH, 9);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
        fail("claude", ProviderClass.OAUTH, 1);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(300_000);
    }

    @Test
    void aSuccessEndsTheCooldown_PC2() {
        fail("claude", ProviderClass.OAUTH, 10);
        cooldowns.recordSuccess("claude", "c1");
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
    }

    @Test
    void failuresWhileCoolingDoNotExtendButTheFirstAfterItCoolsAgain_PC2() {
        fail("claude", ProviderClass.OAUTH, 10);
        advance(100_000);
        fail("claude", ProviderClass.OAUTH, 3);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(200_000);
        advance(200_000);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isZero();
        fail("claude", ProviderClass.OAUTH, 1); // the window is still full: like a failed probe
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(300_000);
    }

    @Test
    void theQueriedClassDecidesTheCooldownAndNullMeansTheLastFailures_PC2() {
        fail("claude", ProviderClass.OAUTH, 10);
        assertThat(cooldowns.providerRemainingMs("claude", null)).isEqualTo(300_000);
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.APIKEY)).isEqualTo(600_000);
        assertThat(cooldowns.providerRemainingMs("openai", ProviderClass.APIKEY)).isZero();
    }

    @Test
    void profileChangesApplyLive_PC2() {
        fail("claude", ProviderClass.OAUTH, 10);
        settings.set(with(new ProviderCooldownSettings(true, 5_000, 300_000, new WindowProfile(10, 900_000, 60_000),
                D.apikey(), D.local())));
        assertThat(cooldowns.providerRemainingMs("claude", ProviderClass.OAUTH)).isEqualTo(60_000);
        settings.set(with(new ProviderCooldownSettings(true, 5_000, 300_000, new WindowProfile(3, 900_000, 300_000),
                D.apikey(), D.local())));
        fail("other", ProviderClass.OAUTH, 3);
        assertThat(cooldowns.providerRemainingMs("other", ProviderClass.OAUTH)).isEqualTo(300_000);
    }

    // ------------------------------------------------------------------ PC-3 connection entries

    @Test
    void connectionEntriesBackOffFromFiveSecondsToFiveMinutes_PC3() {
        long[] expected = {5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000};
        for (int i = 0; i < expected.length; i++) {
            cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
            assertThat(cooldowns.connectionRemainingMs("glm", "c1")).as("failure %d", i + 1).isEqualTo(expected[i]);
            advance(expected[i]);
            assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isZero();
        }
    }

    @Test
    void aConnectionCoolsWhileElapsedIsBelowItsBackoff_PC3() {
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        advance(4_999);
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isEqualTo(1);
        advance(1);
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isZero();
    }

    @Test
    void theExponentStopsAtTen_PC3() {
        ProviderCooldownSettings wide = new ProviderCooldownSettings(true, 1, 1_000_000, D.oauth(), D.apikey(),
                D.local());
        assertThat(LocalProviderCooldowns.retryCooldownMs(wide, 1)).isEqualTo(1);
        assertThat(LocalProviderCooldowns.retryCooldownMs(wide, 11)).isEqualTo(1_024);
        assertThat(LocalProviderCooldowns.retryCooldownMs(wide, 12)).isEqualTo(1_024);
        assertThat(LocalProviderCooldowns.retryCooldownMs(wide, Integer.MAX_VALUE)).isEqualTo(1_024);
        assertThat(LocalProviderCooldowns.retryCooldownMs(ON, 7)).isEqualTo(300_000);
    }

    @Test
    void aSuccessResetsTheConnection_PC3() {
        for (int i = 0; i < 3; i++) {
            cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        }
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isEqualTo(20_000);
        cooldowns.recordSuccess("other", "c1"); // another provider's success does not touch it
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isEqualTo(20_000);
        cooldowns.recordSuccess("glm", "c1");
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isZero();
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isEqualTo(5_000);
    }

    @Test
    void connectionsAreIndependentAndBelongToTheirProvider_PC3() {
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        assertThat(cooldowns.connectionRemainingMs("glm", "c2")).isZero();
        assertThat(cooldowns.connectionRemainingMs("openai", "c1")).isZero();
    }

    @Test
    void anEntryIdleForThirtyMinutesStartsOver_PC3() {
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        advance(30 * MINUTE); // exactly the retention: still remembered
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isEqualTo(20_000);
        advance(30 * MINUTE + 1);
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isEqualTo(5_000);
    }

    // ------------------------------------------------------------------ admin, memory, concurrency

    @Test
    void entriesListBothLevelsByKey_PC2_PC3() {
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c2");
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c2");
        fail("claude", ProviderClass.OAUTH, 10);
        cooldowns.recordFailure("claude", ProviderClass.OAUTH, "c1");
        advance(1_000);
        assertThat(cooldowns.entries()).containsExactly(
                new ProviderCooldownEntry("claude", "claude", null, 10, 299_000),
                new ProviderCooldownEntry("claude:c1", "claude", "c1", 1, 4_000),
                new ProviderCooldownEntry("glm", "glm", null, 2, 0),
                new ProviderCooldownEntry("glm:c2", "glm", "c2", 2, 9_000));
    }

    @Test
    void clearForgetsEverythingAndClearConnectionOneEntry_PC2_PC3() {
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c2");
        cooldowns.clearConnection("c1");
        assertThat(cooldowns.connectionRemainingMs("glm", "c1")).isZero();
        assertThat(cooldowns.connectionRemainingMs("glm", "c2")).isEqualTo(5_000);
        cooldowns.clear();
        assertThat(cooldowns.entries()).isEmpty();
        assertThat(cooldowns.storedEntries()).isZero();
    }

    @Test
    void writesSweepEntriesIdleForThirtyMinutes_PC3() {
        cooldowns.recordFailure("glm", ProviderClass.APIKEY, "c1");
        cooldowns.recordFailure("openai", ProviderClass.APIKEY, "c2");
        assertThat(cooldowns.storedEntries()).isEqualTo(4);
        advance(30 * MINUTE + 1);
        cooldowns.recordFailure("claude", ProviderClass.OAUTH, "c3");
        assertThat(cooldowns.storedEntries()).isEqualTo(2);
        assertThat(cooldowns.entries()).extracting(ProviderCooldownEntry::key).containsExactly("claude", "claude:c3");
    }

    @Test
    void concurrentFailuresAreAllCounted_PC2_PC3() throws Exception {
        int threads = 8;
        int perThread = 1_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    cooldowns.recordFailure("glm", ProviderClass.APIKEY, "shared");
                    cooldowns.recordFailure("glm", ProviderClass.APIKEY, "t" + id);
                    cooldowns.connectionRemainingMs("glm", "shared");
                    cooldowns.recordSuccess("glm", "t" + id);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        // every thread ends with a success, which clears the provider window; "shared" never succeeds
        assertThat(cooldowns.entries()).containsExactly(
                new ProviderCooldownEntry("glm:shared", "glm", "shared", threads * perThread, 300_000));
    }
}
