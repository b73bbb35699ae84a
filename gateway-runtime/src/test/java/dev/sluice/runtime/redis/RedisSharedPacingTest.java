package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.shared.SharedGates;
import dev.sluice.runtime.resilience.gate.shared.SharedPacing;
import dev.sluice.runtime.resilience.gate.shared.SharedTurns;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pacing shared through a real redis-server: the start slots handed out over two instances' gates
 * are a spacing apart (NF-6, RQ-10). Slots are read on the Redis server's clock, as the pacing
 * script hands them out (each grant is followed by a read of the stored slot, the two serialized by
 * the test so that no grant comes between); with Redis gone the local pacing runs on a test clock.
 */
@org.junit.jupiter.api.Timeout(30)
class RedisSharedPacingTest {

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    /** The slots granted, on the Redis server's clock (epoch ms), in the order they were granted. */
    private final List<Long> slots = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Object granting = new Object();
    /** Reads the stored slots; opened at the first grant, after the server started. */
    private RedisClient reader;

    @AfterEach
    void closeReader() {
        if (reader != null) {
            reader.close();
        }
    }

    private SharedState instance() {
        return redis.instance();
    }

    /** An instance's gates whose shared slots are recorded: each grant, then the slot it stored. */
    private ConnectionGates gates(SharedState s, InstantSource clock) {
        SharedPacing pacing = s.pacing();
        SharedPacing recorded = (connectionId, spacingMs, maxDelayMs) -> {
            synchronized (granting) {
                SharedPacing.Slot slot = pacing.next(connectionId, spacingMs, maxDelayMs);
                if (slot.kind() == SharedPacing.Kind.GRANTED) {
                    if (reader == null) {
                        reader = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS);
                    }
                    slots.add(Long.parseLong(reader.call(j -> j.get(RedisPacing.key(connectionId)))));
                }
                return slot;
            }
        };
        return new ConnectionGates(clock, n -> { }, SharedTurns.over(SharedGates.NONE.withPermits(s.permits()).withPacing(recorded), clock));
    }

    private ConnectionGates gates(SharedState s) {
        return gates(s, InstantSource.system());
    }

    private static Limits paced(long spacingMs, long maxWaitMs) {
        return new Limits(0, 0, true, maxWaitMs, 0, spacingMs);
    }

    private static void start(ConnectionGates g, Limits limits) throws InterruptedException {
        start(g, "conn", limits);
    }

    private static void start(ConnectionGates g, String connectionId, Limits limits) throws InterruptedException {
        Entry e = g.enter(connectionId, "m", limits, null);
        assertThat(e).isInstanceOf(Permit.class);
        ((Permit) e).release();
    }

    /** Enters on a virtual thread; the future completes when the request started (its permit released at once). */
    private static CompletableFuture<Void> startLater(ConnectionGates g, Limits limits) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                start(g, limits);
                f.complete(null);
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    @Test
    void tenConcurrentRequestsOverTwoInstancesStartASpacingApart_NF6_RQ10() throws Exception {
        List<ConnectionGates> gates = List.of(gates(instance()), gates(instance()));
        Limits limits = paced(100, 20_000);
        List<Callable<Void>> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ConnectionGates g = gates.get(i % 2);
            clients.add(() -> {
                start(g, limits);
                return null;
            });
        }
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Void> f : pool.invokeAll(clients)) {
                f.get();
            }
        }
        assertThat(slots).hasSize(10);
        for (int i = 1; i < slots.size(); i++) {
            assertThat(slots.get(i) - slots.get(i - 1)).as("slot %d after slot %d", i, i - 1).isGreaterThanOrEqualTo(100);
        }
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            assertThat((long) raw.call(j -> j.pttl(RedisPacing.key("conn")))).as("the last start expires (-2: already gone on a slow machine; -1 would be a key without TTL)")
                    .isNotEqualTo(-1L).isLessThanOrEqualTo(300L);
        }
    }

    @Test
    void aSlotBeyondTheWaitBoundIsRefusedAndLeftForTheNextRequest_RQ1_NF6() throws Exception {
        ConnectionGates a = gates(instance());
        ConnectionGates b = gates(instance());
        start(a, paced(300, 5_000));
        try (RedisClient raw = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS)) {
            String last = raw.call(j -> j.get(RedisPacing.key("conn")));
            Entry refused = b.enter("conn", "m", paced(300, 50), null);
            assertThat(refused).isInstanceOf(Refused.class);
            assertThat(((Refused) refused).refusal()).isEqualTo(Refusal.RATE_LIMIT_QUEUE_TIMEOUT);
            assertThat(((Refused) refused).retryAfterMs()).as("the slot lies beyond the 50 ms bound, at most a spacing ahead").isBetween(51L, 300L);
            assertThat(b.snapshot("conn").running()).isZero();
            String after = raw.call(j -> j.get(RedisPacing.key("conn")));
            assertThat(after).as("the slot was not taken").isEqualTo(last);
        }
        start(b, paced(300, 5_000));
        assertThat(slots).hasSize(2);
        assertThat(slots.get(1) - slots.get(0)).as("the next request gets the slot the refused one left").isEqualTo(300);
    }

    @Test
    void withRedisKilledEachInstanceSpacesItsOwnStartsAndNothingHangs_NF6() throws Exception {
        TestClock clock = TestClock.create();
        SharedState sa = instance();
        ConnectionGates a = gates(sa, clock);
        ConnectionGates b = gates(instance(), clock);
        start(a, paced(100, 5_000)); // the connection's first slot: granted now, nothing to wait for
        // B's pool and code path warmed on another connection
        start(b, "warm-up", paced(100, 5_000));
        redis.server().stop();

        CompletableFuture<Void> first = startLater(a, paced(100, 5_000));
        staysWaiting(first);
        clock.advance(Duration.ofMillis(100));
        assertThat(first).as("A's own spacing after its start before the outage").succeedsWithin(Duration.ofSeconds(5));
        CompletableFuture<Void> second = startLater(a, paced(100, 5_000));
        staysWaiting(second);
        assertThat(startLater(b, paced(100, 5_000))).as("B paces only its own starts: it does not wait a spacing after A's")
                .succeedsWithin(Duration.ofSeconds(5));
        clock.advance(Duration.ofMillis(99));
        staysWaiting(second);
        clock.advance(Duration.ofMillis(1));
        assertThat(second).succeedsWithin(Duration.ofSeconds(5));
        assertThat(sa.pacingFailedOpen()).isEqualTo(2);
        assertThat(sa.permitsFailedOpen()).as("no permits asked: nothing capped").isZero();
    }

    /** The request stays waiting while its gate looks at the clock again (a test clock short of the moment). */
    private static void staysWaiting(CompletableFuture<Void> f) {
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> !f.isDone());
    }
}
