package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.breaker.shared.BreakerBoard;
import dev.sluice.runtime.resilience.gate.shared.SharedPacing;
import dev.sluice.runtime.resilience.gate.shared.SharedPermits;
import dev.sluice.runtime.resilience.gate.shared.SharedWaiters;
import dev.sluice.runtime.resilience.lockout.shared.LockoutBoard;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.params.SetParams;

/**
 * Redis as a dependency with a breaker of its own (issue 37.2): the first call that cannot reach it
 * switches the instance to its local fallback, later calls make no network call, a probe finds it
 * again, and shared mode resumes with the boards read again.
 */
class RedisFallbackTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    @Test
    void theFirstFailedCallSwitchesToLocalAndTheProbeSwitchesBack_issue37() {
        AtomicInteger ups = new AtomicInteger();
        AtomicInteger downs = new AtomicInteger();
        try (RedisClient client = new RedisClient(redis.settings(), 0)) {
            client.onUp(ups::incrementAndGet);
            client.onDown(downs::incrementAndGet);
            assertThat((String) client.call(j -> j.set("k", "v"))).isEqualTo("OK");
            client.probe();
            assertThat(ups.get()).as("up: the probe does nothing").isZero();

            redis.server().stop();
            assertThatThrownBy(() -> client.call(j -> j.get("k"))).isInstanceOf(RedisClient.Unavailable.class);
            assertThat(client.down()).isTrue();
            assertThat(client.failures()).isEqualTo(1);
            assertThat(downs.get()).isEqualTo(1);
            for (int i = 0; i < 100; i++) {
                assertThatThrownBy(() -> client.call(j -> j.get("k"))).isInstanceOf(RedisClient.Unavailable.class);
            }
            assertThat(client.failures()).as("while down no call reaches for the network").isEqualTo(1);
            assertThat(client.switchesToLocal()).isEqualTo(1);
            client.probe();
            assertThat(client.down()).as("nothing answers yet").isTrue();

            redis.restart();
            assertThat(client.down()).as("back only when the probe says so").isTrue();
            client.probe();
            assertThat(client.down()).isFalse();
            assertThat(ups.get()).isEqualTo(1);
            assertThat(client.switchesToShared()).isEqualTo(1);
            assertThat((String) client.call(j -> j.set("k", "v"))).isEqualTo("OK");
        }
    }

    @Test
    void anErrorTheServerAnswersSwitchesNothing_issue37() {
        try (RedisClient client = new RedisClient(redis.settings(), 0)) {
            client.call(j -> j.set("k", "v"));
            assertThatThrownBy(() -> client.call(j -> j.hget("k", "f"))).isInstanceOf(RedisClient.Unavailable.class);
            assertThat(client.down()).isFalse();
            assertThat(client.switchesToLocal()).isZero();
        }
    }

    @Test
    void aPartitionCostsOneTimeoutThenNothingUntilRedisAnswersAndTheBoardsAreReadAgain_issue37() {
        SharedState a = redis.instance();
        await().atMost(Duration.ofSeconds(5)).until(a::eventsSubscribed);
        BreakerKey key = new BreakerKey("openai", "api.example:443");
        // written behind the instance's back (no announcement): it learns of it only by reading Redis again
        try (RedisClient raw = new RedisClient(redis.settings(), 0)) {
            raw.call(j -> j.set(RedisCooldownBoard.key("c9"), "1", SetParams.setParams().px(60_000)));
        }
        assertThat(a.cooldowns().remainingMs("c9")).isZero();

        redis.server().freeze();
        try {
            long t0 = System.nanoTime();
            assertThat(a.permits().tryAcquire("c1", "m", 1, 0)).isSameAs(SharedPermits.Held.LOCAL);
            Duration first = Duration.ofNanos(System.nanoTime() - t0);
            assertThat(first).as("one timeout").isLessThan(Duration.ofMillis(2 * RedisSettings.DEFAULT_TIMEOUT.toMillis()));
            assertThat(a.fallback()).isEqualTo(1);

            // nothing more on the network: with the server frozen any call that went out would fail (and be counted)
            for (int i = 0; i < 50; i++) {
                // every Redis-backed mechanism of the instance, as a request meets them
                assertThat(a.permits().tryAcquire("c1", "m", 1, 0)).isSameAs(SharedPermits.Held.LOCAL);
                assertThat(a.pacing().next("c1", 100, 1_000)).isSameAs(SharedPacing.Slot.LOCAL);
                assertThat(a.waiters().tryJoin("c1", 4)).isSameAs(SharedWaiters.Place.LOCAL);
                assertThat(a.cooldowns().remainingMs("c1")).isZero();
                assertThat(a.breakers().admit(key, true, 1_000)).isEqualTo(BreakerBoard.ADMITTED);
                assertThat(a.lockouts().find("c1", List.of("model:m"))).isNull();
                assertThat(a.windows().remainingMs("glm")).isZero();
                a.cooldowns().cooled("c2", 1_000);
                a.lockouts().locked("c2", "model:m", new LockoutBoard.Lock("m", LockScope.MODEL, FailureReason.NOT_FOUND, 1_000));
                a.events().publish(new dev.sluice.runtime.resilience.ClusterEvent.PacingEnded("c1"));
                assertThat(a.notes("p").orElseThrow().get("k")).isEmpty();
            }
            assertThat(a.client().failures()).as("one call met the partition; 50 requests' worth of shared calls after it none")
                    .isEqualTo(1);
            assertThat(a.reachable()).isFalse();
            assertThat(a.switchesToLocal()).isEqualTo(1);
        } finally {
            redis.server().thaw();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> a.fallback() == 0 && a.eventsSubscribed());
        assertThat(a.switchesToShared()).isEqualTo(1);
        await("read again after the re-subscription").atMost(Duration.ofSeconds(5)).until(() -> a.cooldowns().remainingMs("c9") > 0);
        assertThat(a.permits().tryAcquire("c1", "m", 1, 0)).isNotSameAs(SharedPermits.Held.LOCAL);
    }
}
