package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.SharedGates;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Pacing shared through a real redis-server: the spacing between starts holds over two instances' gates (NF-6, RQ-10). */
@org.junit.jupiter.api.Timeout(30)
class RedisSharedPacingTest {

    /** How much earlier than the spacing a start may be seen: the wake-up jitter of the waiting thread. */
    private static final long TOLERANCE_MS = 20;

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    private SharedState instance() {
        return redis.instance();
    }

    private static ConnectionGates gates(SharedState s) {
        return new ConnectionGates(InstantSource.system(), n -> { }, SharedGates.NONE.withPermits(s.permits()).withPacing(s.pacing()));
    }

    private static Limits paced(long spacingMs, long maxWaitMs) {
        return new Limits(0, 0, true, maxWaitMs, 0, spacingMs);
    }

    /** Enters; returns System.nanoTime() when the request started (its permit released at once). */
    private static long startNanos(ConnectionGates g, Limits limits) throws InterruptedException {
        return startNanos(g, "conn", limits);
    }

    private static long startNanos(ConnectionGates g, String connectionId, Limits limits) throws InterruptedException {
        Entry e = g.enter(connectionId, "m", limits, null);
        long at = System.nanoTime();
        assertThat(e).isInstanceOf(Permit.class);
        ((Permit) e).release();
        return at;
    }

    private static long ms(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }

    @Test
    void tenConcurrentRequestsOverTwoInstancesStartASpacingApart_NF6_RQ10() throws Exception {
        List<ConnectionGates> gates = List.of(gates(instance()), gates(instance()));
        Limits limits = paced(100, 20_000);
        List<Callable<Long>> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ConnectionGates g = gates.get(i % 2);
            clients.add(() -> startNanos(g, limits));
        }
        List<Long> starts = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Future<Long> f : pool.invokeAll(clients)) {
                starts.add(f.get());
            }
        }
        Collections.sort(starts);
        for (int i = 1; i < starts.size(); i++) {
            assertThat(ms(starts.get(i) - starts.get(i - 1))).as("start %d after start %d", i, i - 1)
                    .isGreaterThanOrEqualTo(100 - TOLERANCE_MS);
        }
        try (RedisClient raw = new RedisClient(redis.settings())) {
            assertThat((long) raw.call(j -> j.pttl(RedisPacing.key("conn")))).as("the last start expires (-2: already gone on a slow machine; -1 would be a key without TTL)")
                    .isNotEqualTo(-1L).isLessThanOrEqualTo(300L);
        }
    }

    @Test
    void aSlotBeyondTheWaitBoundIsRefusedAndLeftForTheNextRequest_RQ1_NF6() throws Exception {
        ConnectionGates a = gates(instance());
        ConnectionGates b = gates(instance());
        long first = startNanos(a, paced(300, 5_000));
        try (RedisClient raw = new RedisClient(redis.settings())) {
            String last = raw.call(j -> j.get(RedisPacing.key("conn")));
            Entry refused = b.enter("conn", "m", paced(300, 50), null);
            assertThat(refused).isInstanceOf(Refused.class);
            assertThat(((Refused) refused).refusal()).isEqualTo(Refusal.RATE_LIMIT_QUEUE_TIMEOUT);
            assertThat(((Refused) refused).retryAfterMs()).isBetween(51L, 300L);
            assertThat(b.snapshot("conn").running()).isZero();
            String after = raw.call(j -> j.get(RedisPacing.key("conn")));
            assertThat(after).as("the slot was not taken").isEqualTo(last);
        }
        long next = startNanos(b, paced(300, 5_000));
        assertThat(ms(next - first)).as("the next request gets the slot the refused one left").isBetween(300 - TOLERANCE_MS, 550L);
    }

    @Test
    void withRedisKilledEachInstanceSpacesItsOwnStartsAndNothingHangs_NF6() throws Exception {
        SharedState sa = instance();
        ConnectionGates a = gates(sa);
        ConnectionGates b = gates(instance());
        startNanos(a, paced(100, 5_000));
        // B's pool and code path warmed on another connection, so that its timing below is its pacing's
        startNanos(b, "warm-up", paced(100, 5_000));
        redis.server().stop();
        long t0 = System.nanoTime();
        long first = startNanos(a, paced(100, 5_000));
        long second = startNanos(a, paced(100, 5_000));
        long onB = startNanos(b, paced(100, 5_000));
        assertThat(ms(second - first)).as("A's own spacing").isGreaterThanOrEqualTo(100 - TOLERANCE_MS);
        assertThat(ms(onB - second)).as("B paces only its own starts: it does not wait a spacing after A's").isLessThan(100);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(sa.pacingFailedOpen()).isEqualTo(2);
        assertThat(sa.permitsFailedOpen()).as("no permits asked: nothing capped").isZero();
    }
}
