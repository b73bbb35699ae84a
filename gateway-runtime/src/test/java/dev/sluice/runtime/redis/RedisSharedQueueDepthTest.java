package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.shared.SharedTurns;
import dev.sluice.runtime.resilience.gate.shared.SharedWaiters;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The queue depth shared through a real redis-server: {@code maxQueueDepth} holds over two instances' gates (NF-6, RQ-5). */
@org.junit.jupiter.api.Timeout(30)
class RedisSharedQueueDepthTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    private SharedState instance(long permitTtlMs) {
        return redis.instance(permitTtlMs);
    }

    private static ConnectionGates gates(SharedState s) {
        return new ConnectionGates(InstantSource.system(), n -> { }, SharedTurns.over(s.gates(), InstantSource.system()));
    }

    private long waitingInRedis(String connectionId) {
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            return raw.call(j -> j.zcard(RedisWaiters.key(connectionId)));
        }
    }

    private boolean waitingKeyExists(String connectionId) {
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            return raw.call(j -> j.exists(RedisWaiters.key(connectionId)));
        }
    }

    @Test
    void tenClientsOverTwoInstancesOneRunsTwoWaitSevenAreRefusedAtOnce_RQ5_NF6() throws Exception {
        SharedState sa = instance(30_000);
        SharedState sb = instance(30_000);
        List<ConnectionGates> gates = List.of(gates(sa), gates(sb));
        Limits limits = new Limits(1, 0, true, 20_000, 2);
        CountDownLatch upstream = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        List<CompletableFuture<Entry>> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ConnectionGates g = gates.get(i % 2);
            clients.add(CompletableFuture.supplyAsync(() -> {
                try {
                    Entry e = g.enter("conn", "m", limits, null);
                    if (e instanceof Permit p) {
                        running.incrementAndGet();
                        try {
                            upstream.await(); // the slow upstream
                        } finally {
                            running.decrementAndGet();
                            p.release();
                        }
                    } else {
                        refused.incrementAndGet();
                    }
                    return e;
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> refused.get() == 7 && running.get() == 1 && waitingInRedis("conn") == 2);
        // and it stays so: nobody else is let in while the upstream is slow
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2))
                .until(() -> refused.get() == 7 && running.get() == 1 && waitingInRedis("conn") == 2);
        upstream.countDown();
        List<Entry> entries = new ArrayList<>();
        for (CompletableFuture<Entry> c : clients) {
            entries.add(c.get(20, TimeUnit.SECONDS));
        }
        assertThat(entries).filteredOn(e -> e instanceof Permit).hasSize(3);
        assertThat(entries).filteredOn(e -> e instanceof Refused).hasSize(7)
                .allSatisfy(e -> assertThat(((Refused) e).refusal()).isEqualTo(Refusal.RATE_LIMIT_QUEUE_FULL));
        assertThat(waitingKeyExists("conn")).as("every place was given up").isFalse();
        assertThat(sa.queueFailedOpen() + sb.queueFailedOpen()).isZero();
    }

    @Test
    void placesOfAnInstanceThatStoppedRenewingExpireAfterThePermitTtl_NF6() {
        SharedState dead = instance(1_000);
        SharedState b = instance(1_000);
        SharedWaiters.Place place = dead.waiters().tryJoin("c1", 1);
        assertThat(place).isNotNull().isNotSameAs(SharedWaiters.Place.LOCAL);
        assertThat(b.waiters().tryJoin("c1", 1)).isNull();
        // the heartbeat keeps a live place past its expiry: the queue stays full for 1.5 times the 1 s TTL
        await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3)).until(() -> b.waiters().tryJoin("c1", 1) == null);
        // kill -9 as far as Redis can tell: the heartbeat stops, the place is never left
        dead.close();
        redis.forget(dead);
        await().atMost(Duration.ofSeconds(3)).until(() -> {
            SharedWaiters.Place p = b.waiters().tryJoin("c1", 1);
            if (p != null) {
                p.leave();
            }
            return p != null;
        });
        assertThat(waitingKeyExists("c1")).isFalse();
    }

    @Test
    void aPlaceLeftIsFreeAtOnceAndTheKeyGoesWithItsLastPlace_NF6() {
        SharedState a = instance(30_000);
        SharedState b = instance(30_000);
        SharedWaiters.Place first = a.waiters().tryJoin("c1", 2);
        SharedWaiters.Place second = b.waiters().tryJoin("c1", 2);
        assertThat(List.of(first, second)).doesNotContainNull();
        assertThat(a.waiters().tryJoin("c1", 2)).isNull();
        assertThat(a.waiters().tryJoin("c2", 2)).as("per connection").isNotNull();
        first.leave();
        first.leave();
        SharedWaiters.Place third = b.waiters().tryJoin("c1", 2);
        assertThat(third).isNotNull();
        second.leave();
        third.leave();
        assertThat(waitingKeyExists("c1")).isFalse();
    }

    @Test
    void redisDownFallsBackToEachInstancesOwnDepthWithinTheTimeoutAndCountsIt_NF6() throws Exception {
        SharedState a = instance(30_000);
        ConnectionGates g = gates(a);
        Limits limits = new Limits(1, 0, true, 20_000, 1);
        redis.server().stop();
        long t0 = System.nanoTime();
        Permit running = (Permit) g.enter("c1", "m", limits, null);
        CompletableFuture<Entry> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return g.enter("c1", "m", limits, null);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        await().atMost(Duration.ofSeconds(5)).until(() -> g.snapshot("c1").queued() == 1);
        assertThat(g.enter("c1", "m", limits, null)).as("the instance's own depth").isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        assertThat(a.queueFailedOpen()).isEqualTo(1);
        running.release();
        ((Permit) waiter.get(5, TimeUnit.SECONDS)).release();
    }
}
