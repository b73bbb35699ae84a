package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.breaker.shared.BreakerBoard;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.shared.SharedGates;
import dev.sluice.runtime.resilience.gate.shared.SharedPermits;
import dev.sluice.runtime.resilience.gate.shared.SharedTurns;
import dev.sluice.runtime.resilience.lockout.shared.LockoutBoard;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redis implementations of the shared hot state against a real redis-server (NF-6). */
class RedisSharedStateTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    private SharedState instance(long permitTtlMs) {
        return redis.instance(permitTtlMs);
    }

    @Test
    void oneInstanceClaimsACooldownOfABurstTheOtherFindsItTaken_NF6_CC3() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        assertThat(a.cooldowns().claim("c1", 60_000)).isTrue();
        assertThat(b.cooldowns().claim("c1", 60_000)).as("the burst already took its step on A").isFalse();
        assertThat(b.cooldowns().remainingMs("c1")).isBetween(50_000L, 60_000L);
        assertThat(b.cooldowns().claim("c2", 60_000)).isTrue();
        b.cooldowns().cleared("c1");
        assertThat(b.cooldowns().claim("c1", 1_000)).isTrue();
    }

    @Test
    void aPermitTakenOnOneInstanceCountsOnTheOther_NF6() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        SharedPermits.Held held = a.permits().tryAcquire("c1", "m", 1, 0);
        assertThat(held).isNotNull().isNotSameAs(SharedPermits.Held.LOCAL);
        assertThat(b.permits().tryAcquire("c1", "m", 1, 0)).isNull();
        assertThat(b.permits().tryAcquire("c2", "m", 1, 0)).isNotNull();
        held.release();
        held.release();
        assertThat(b.permits().tryAcquire("c1", "m", 1, 0)).isNotNull();
    }

    @Test
    void aModelCapHoldsAcrossInstancesWhileOtherModelsStart_NF6() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        assertThat(a.permits().tryAcquire("c1", "m1", 5, 1)).isNotNull();
        assertThat(b.permits().tryAcquire("c1", "m1", 5, 1)).isNull();
        assertThat(b.permits().tryAcquire("c1", "m2", 5, 1)).isNotNull();
    }

    @Test
    void permitsOfAnInstanceThatStoppedRenewingExpire_NF6() {
        SharedState dead = instance(1_000);
        SharedState b = instance(1_000);
        assertThat(dead.permits().tryAcquire("c1", "m", 1, 0)).isNotNull();
        // the heartbeat keeps a live permit past its expiry: the cap stays taken for 1.5 times the 1 s TTL
        await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3))
                .until(() -> b.permits().tryAcquire("c1", "m", 1, 0) == null);
        // kill -9 as far as Redis can tell: the heartbeat stops, the permit is never released
        dead.close();
        redis.forget(dead);
        await().atMost(Duration.ofSeconds(3)).until(() -> b.permits().tryAcquire("c1", "m", 1, 0) != null);
    }

    @Test
    void maxConcurrentOneHoldsOverTwoInstancesOfGates_NF6() throws Exception {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        List<ConnectionGates> gates = List.of(new ConnectionGates(InstantSource.system(), n -> { }, SharedTurns.over(SharedGates.NONE.withPermits(a.permits()), InstantSource.system())),
                new ConnectionGates(InstantSource.system(), n -> { }, SharedTurns.over(SharedGates.NONE.withPermits(b.permits()), InstantSource.system())));
        ConnectionGates.Limits limits = new ConnectionGates.Limits(1, 0, false, 20_000, 0);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger served = new AtomicInteger();
        AtomicInteger crossed = new AtomicInteger();
        List<Callable<Void>> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ConnectionGates g = gates.get(i % 2);
            clients.add(() -> {
                ConnectionGates.Entry e = g.enter("conn", "m", limits, null);
                assertThat(e).isInstanceOf(ConnectionGates.Permit.class);
                try {
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    // the upstream's work while the permit is held: the other instance asks Redis for the connection's permit
                    SharedPermits.Held other = (g == gates.get(0) ? b : a).permits().tryAcquire("conn", "m", 1, 0);
                    if (other != null) {
                        crossed.incrementAndGet();
                        other.release();
                    }
                    served.incrementAndGet();
                } finally {
                    inFlight.decrementAndGet();
                    ((ConnectionGates.Permit) e).release();
                }
                return null;
            });
        }
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Void> f : pool.invokeAll(clients)) {
                f.get();
            }
        }
        assertThat(served).hasValue(10);
        assertThat(most).hasValue(1);
        assertThat(crossed).as("permits the other instance got while one was held").hasValue(0);
    }

    /** Both instances subscribed: from here an announcement reaches the other within the event delivery latency. */
    private static void subscribed(SharedState... instances) {
        await().atMost(SECONDS_5).until(() -> java.util.Arrays.stream(instances).allMatch(SharedState::eventsSubscribed));
    }

    private static final Duration SECONDS_5 = Duration.ofSeconds(5);

    @Test
    void aBreakerOpenedOnOneInstanceRefusesOnTheOtherThenLetsOneProbeThrough_NF6() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        subscribed(a, b);
        BreakerKey key = new BreakerKey("openai", "api.example:443");
        assertThat(b.breakers().admit(key, true, 5_000)).isEqualTo(BreakerBoard.ADMITTED);
        a.breakers().opened(key, 300, 5_000);
        await().atMost(SECONDS_5).until(() -> b.breakers().admit(key, true, 5_000) > 0);
        await().atMost(Duration.ofSeconds(2)).until(() -> b.breakers().admit(key, false, 5_000) == BreakerBoard.PROBE);
        assertThat(b.breakers().admit(key, true, 5_000)).isEqualTo(BreakerBoard.PROBE);
        assertThat(a.breakers().admit(key, true, 5_000)).isGreaterThan(0);
        b.breakers().released(key);
        assertThat(a.breakers().admit(key, true, 5_000)).isEqualTo(BreakerBoard.PROBE);
        a.breakers().closed(key);
        await().atMost(SECONDS_5).until(() -> b.breakers().admit(key, true, 5_000) == BreakerBoard.ADMITTED);
    }

    @Test
    void aCooldownAnnouncedOnOneInstanceIsSeenOnTheOtherUntilCleared_NF6() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        subscribed(a, b);
        assertThat(b.cooldowns().remainingMs("c1")).isZero();
        a.cooldowns().cooled("c1", 60_000);
        await().atMost(SECONDS_5).until(() -> b.cooldowns().remainingMs("c1") > 0);
        assertThat(b.cooldowns().remainingMs("c1")).isBetween(50_000L, 60_000L);
        a.cooldowns().cleared("c1");
        await().atMost(SECONDS_5).until(() -> b.cooldowns().remainingMs("c1") == 0);
    }

    @Test
    void aModelLockoutAnnouncedOnOneInstanceIsSeenOnTheOtherUntilCleared_NF6_ML4() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        subscribed(a, b);
        List<String> slots = List.of("family:gpt-5", "model:gpt-5.1", "exact:gpt-5.1", "retry:gpt-5.1");
        assertThat(b.lockouts().find("c1", slots)).isNull();
        a.lockouts().locked("c1", "exact:gpt-5.1", new LockoutBoard.Lock("gpt-5.1", LockScope.EXACT, FailureReason.SERVER_ERROR, 30_000));
        a.lockouts().locked("c1", "family:gpt-5", new LockoutBoard.Lock("gpt-5", LockScope.MODEL, FailureReason.QUOTA_EXHAUSTED, 60_000));
        await().atMost(SECONDS_5).until(() -> b.lockouts().find("c1", slots) != null && b.lockouts().find("c1", slots).model().equals("gpt-5"));
        LockoutBoard.Lock seen = b.lockouts().find("c1", slots);
        assertThat(seen.scope()).isEqualTo(LockScope.MODEL);
        assertThat(seen.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(seen.remainingMs()).as("the lock that ends last").isBetween(50_000L, 60_000L);
        assertThat(b.lockouts().find("c2", slots)).isNull();
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            assertThat((long) raw.call(j -> j.pttl("sluice:lockouts:c1"))).as("the index expires with its last lock").isBetween(50_000L, 60_000L);
        }

        b.lockouts().cleared("c1", List.of("family:gpt-5"));
        await().atMost(SECONDS_5).until(() -> a.lockouts().find("c1", slots).model().equals("gpt-5.1"));
        b.lockouts().clearedConnection("c1");
        await().atMost(SECONDS_5).until(() -> a.lockouts().find("c1", slots) == null);
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            assertThat((java.util.Set<String>) raw.call(j -> j.keys("sluice:lockout*"))).isEmpty();
        }
    }

    @Test
    void anAnnouncedLockoutAndWindowExpireWithTheirTime_NF6() {
        SharedState a = instance(30_000);
        a.lockouts().locked("c1", "model:m", new LockoutBoard.Lock("m", LockScope.MODEL, FailureReason.NOT_FOUND, 2_000));
        a.windows().cooling("glm", 2_000);
        // two seconds, not a few hundred ms: a slow CI machine took longer than 300 ms between the two lines
        assertThat(a.lockouts().find("c1", List.of("model:m"))).isNotNull();
        assertThat(a.windows().remainingMs("glm")).isBetween(1L, 2_000L);
        await().atMost(Duration.ofSeconds(8)).until(() -> a.lockouts().find("c1", List.of("model:m")) == null
                && a.windows().remainingMs("glm") == 0);
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            assertThat((java.util.Set<String>) raw.call(j -> j.keys("sluice:*"))).as("nothing outlives its expiry").isEmpty();
        }
    }

    @Test
    void aProviderWindowAnnouncedOnOneInstanceIsSeenOnTheOtherUntilCleared_NF6_PC2() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        subscribed(a, b);
        assertThat(b.windows().remainingMs("glm")).isZero();
        a.windows().cooling("glm", 60_000);
        await().atMost(SECONDS_5).until(() -> b.windows().remainingMs("glm") > 0);
        assertThat(b.windows().remainingMs("glm")).isBetween(50_000L, 60_000L);
        b.windows().cleared("glm");
        await().atMost(SECONDS_5).until(() -> a.windows().remainingMs("glm") == 0);
    }

    @Test
    void aStoppingInstanceGivesBackItsPermitsAtOnce_issue37() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        assertThat(a.permits().tryAcquire("c1", "m", 1, 0)).isNotNull();
        assertThat(a.waiters().tryJoin("c1", 1)).isNotNull();
        assertThat(b.permits().tryAcquire("c1", "m", 1, 0)).as("held by a").isNull();
        assertThat(b.waiters().tryJoin("c1", 1)).as("held by a").isNull();
        redis.forget(a);
        a.close();
        assertThat(b.permits().tryAcquire("c1", "m", 1, 0)).as("free at once, not after the 30 s expiry").isNotNull();
        assertThat(b.waiters().tryJoin("c1", 1)).isNotNull();
    }

    @Test
    void anInstanceStartedAfterTheAnnouncementsReadsThemFromRedis_issue26() {
        SharedState a = instance(30_000);
        BreakerKey key = new BreakerKey("openai", "api.example:443");
        a.cooldowns().cooled("c1", 60_000);
        a.windows().cooling("glm", 60_000);
        a.breakers().opened(key, 60_000, 5_000);
        a.lockouts().locked("c1", "model:m", new LockoutBoard.Lock("m", LockScope.MODEL, FailureReason.NOT_FOUND, 60_000));
        SharedState late = instance(30_000);
        await().atMost(SECONDS_5).until(() -> late.cooldowns().remainingMs("c1") > 0 && late.windows().remainingMs("glm") > 0
                && late.breakers().admit(key, true, 5_000) > 0 && late.lockouts().find("c1", List.of("model:m")) != null);
        assertThat(late.lockouts().find("c1", List.of("model:m")).reason()).isEqualTo(FailureReason.NOT_FOUND);
        assertThat(late.breakers().admit(key, true, 5_000)).isBetween(50_000L, 60_000L);
    }

    @Test
    void redisDownFailsOpenWithinTheTimeoutAndHealthSaysSo_NF6() {
        SharedState a = instance(30_000);
        assertThat(a.reachable()).isTrue();
        redis.server().stop();
        long t0 = System.nanoTime();
        assertThat(a.permits().tryAcquire("c1", "m", 1, 0)).isSameAs(SharedPermits.Held.LOCAL);
        assertThat(a.breakers().admit(new BreakerKey("p", "h:1"), true, 1_000)).isEqualTo(BreakerBoard.ADMITTED);
        assertThat(a.cooldowns().remainingMs("c1")).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        // lockouts and windows: this instance's own state only, each call bounded
        long t1 = System.nanoTime();
        a.lockouts().locked("c1", "model:m", new LockoutBoard.Lock("m", LockScope.MODEL, FailureReason.NOT_FOUND, 1_000));
        assertThat(a.lockouts().find("c1", List.of("model:m"))).isNull();
        a.lockouts().clearedConnection("c1");
        a.windows().cooling("glm", 1_000);
        assertThat(a.windows().remainingMs("glm")).isZero();
        assertThat(Duration.ofNanos(System.nanoTime() - t1)).isLessThan(Duration.ofSeconds(2));
        assertThat(a.reachable()).isFalse();
        assertThat(a.permitsFailedOpen()).isEqualTo(1);
    }
}
