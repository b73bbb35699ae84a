package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.api.ProviderClass.APIKEY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.ResilienceSettings.CircuitBreakerSettings;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers.Admission;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/** The breaker under concurrent callers: one half-open probe, no lost updates (SPEC CB-1, CB-4). */
class CircuitBreakersConcurrencyTest {

    private static final BreakerKey KEY = new BreakerKey("glm", "open.bigmodel.cn:443");
    private static final int THREADS = 64;

    private final TestClock clock = TestClock.create();
    private final InMemoryBreakerStore store = new InMemoryBreakerStore();

    private CircuitBreakers breakers(BreakerProfile apikey) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        CircuitBreakerSettings cb = d.circuitBreaker();
        ResilienceSettings s = ResilienceSettings.of(new CircuitBreakerSettings(cb.oauth(), apikey, cb.local()),
                d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(), d.modelLockout());
        return new LocalCircuitBreakers(clock, () -> s, store);
    }

    /** Runs {@code task(i)} for i in [0, n) on virtual threads released together by one start gate. */
    private static void together(int n, IntConsumer task) throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int id = i;
                done.add(pool.submit(() -> {
                    gate.await();
                    task.accept(id);
                    return null;
                }));
            }
            gate.countDown();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void exactlyOneOfManyConcurrentCallersGetsTheHalfOpenProbe_CB1() throws Exception {
        CircuitBreakers breakers = breakers(ResilienceSettings.DEFAULTS.circuitBreaker().apikey());
        for (int i = 0; i < 12; i++) {
            breakers.onFailure(KEY, APIKEY, "c" + i, "server_error");
        }
        for (int round = 0; round < 20; round++) {
            clock.advance(Duration.ofMillis(breakers.retryAfterMs(KEY, APIKEY)));
            AtomicInteger probes = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            together(THREADS, i -> {
                Admission a = breakers.admit(KEY, APIKEY);
                if (a.probe()) {
                    probes.incrementAndGet();
                } else if (a == Admission.REFUSED) {
                    refused.incrementAndGet();
                }
            });
            assertThat(probes).as("round %d", round).hasValue(1);
            assertThat(refused).as("round %d", round).hasValue(THREADS - 1);
            assertThat(breakers.view(KEY, APIKEY).state()).isEqualTo(BreakerState.HALF_OPEN);
            breakers.onFailure(KEY, APIKEY, "probe", "server_error");
            assertThat(breakers.view(KEY, APIKEY).openCycles()).isEqualTo(round + 1);
        }
    }

    @Test
    void stragglersEndingNeutralAmongConcurrentAdmitsLeaveOneProbe_CB1() throws Exception {
        CircuitBreakers breakers = breakers(ResilienceSettings.DEFAULTS.circuitBreaker().apikey());
        List<Admission> stragglers = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            stragglers.add(breakers.admit(KEY, APIKEY));
        }
        for (int i = 0; i < 12; i++) {
            breakers.onFailure(KEY, APIKEY, "c" + i, "server_error");
        }
        clock.advance(Duration.ofMillis(breakers.retryAfterMs(KEY, APIKEY)));
        AtomicInteger probes = new AtomicInteger();
        together(2 * THREADS, i -> {
            if (i % 2 == 0) {
                breakers.onNeutral(KEY, stragglers.get(i / 2));
            } else if (breakers.admit(KEY, APIKEY).probe()) {
                probes.incrementAndGet();
            }
        });
        assertThat(stragglers).containsOnly(Admission.ADMITTED);
        assertThat(probes).hasValue(1);
        assertThat(breakers.admit(KEY, APIKEY)).isSameAs(Admission.REFUSED);
    }

    @Test
    void concurrentFailuresAreAllCounted_CB4() throws Exception {
        CircuitBreakers breakers = breakers(new BreakerProfile(1_000_000, 1_000_000, 30_000, 4, 3, Map.of()));
        together(THREADS, t -> {
            for (int i = 0; i < 50; i++) {
                breakers.onFailure(KEY, APIKEY, "conn-" + t + "-" + i, "server_error");
            }
        });
        assertThat(breakers.view(KEY, APIKEY).failureCount()).isEqualTo(THREADS * 50);
        assertThat(store.rows.get(KEY).failureCount()).as("the last row written is the last state").isEqualTo(THREADS * 50);
    }

    @Test
    void concurrentSuccessesAndFailuresNetOut_CB4() throws Exception {
        CircuitBreakers breakers = breakers(new BreakerProfile(1_000_000, 1_000_000, 30_000, 4, 3, Map.of()));
        for (int i = 0; i < 2_000; i++) {
            breakers.onFailure(KEY, APIKEY, "seed-" + i, "server_error");
        }
        together(THREADS, t -> {
            for (int i = 0; i < 30; i++) {
                if (t % 2 == 0) {
                    breakers.onSuccess(KEY, APIKEY, "ok-" + t);
                } else {
                    breakers.onFailure(KEY, APIKEY, "conn-" + t + "-" + i, "server_error");
                }
            }
        });
        assertThat(breakers.view(KEY, APIKEY).failureCount()).isEqualTo(2_000);
        assertThat(store.rows.get(KEY).failureCount()).isEqualTo(2_000);
    }

    @Test
    void concurrentResetsAndFailuresLeaveMemoryAndRowsAgreeing_CB7() throws Exception {
        CircuitBreakers breakers = breakers(new BreakerProfile(1_000_000, 1_000_000, 30_000, 4, 3, Map.of()));
        together(THREADS, t -> {
            for (int i = 0; i < 20; i++) {
                if (t == 0 && i % 5 == 0) {
                    breakers.reset();
                } else {
                    breakers.onFailure(KEY, APIKEY, "conn-" + t + "-" + i, "server_error");
                }
            }
        });
        int inMemory = breakers.view(KEY, APIKEY).failureCount();
        BreakerStore.BreakerSnapshot row = store.rows.get(KEY);
        assertThat(row == null ? 0 : row.failureCount()).isEqualTo(inMemory);
    }
}
