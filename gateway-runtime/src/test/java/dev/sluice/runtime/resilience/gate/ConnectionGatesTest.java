package dev.sluice.runtime.resilience.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The caps of §12 and the queue of §14 in front of one connection (QC-1, QC-2, RQ-1, RQ-4, RQ-5, RQ-10). */
class ConnectionGatesTest {

    private final TestClock clock = TestClock.at(Instant.parse("2026-11-29T10:00:00Z"));
    private final ConnectionGates gates = new ConnectionGates(clock, n -> { }, TurnSteps.NONE);

    private static Limits cap(int connectionCap, boolean protectedQueue, long maxWaitMs, int depth) {
        return new Limits(connectionCap, 0, protectedQueue, maxWaitMs, depth);
    }

    private Permit admitted(Entry e) {
        assertThat(e).isInstanceOf(Permit.class);
        return (Permit) e;
    }

    /** Enters on a virtual thread; the future completes when the request starts or is refused. */
    private CompletableFuture<Entry> enterLater(String model, Limits limits, BooleanSupplier stillWanted) {
        CompletableFuture<Entry> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(gates.enter("c1", model, limits, stillWanted));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    private void awaitQueued(int n) {
        await().atMost(Duration.ofSeconds(5)).until(() -> gates.snapshot("c1").queued() == n);
    }

    /** The request stays waiting once its gate has looked again (a test clock short of the moment). */
    private static void staysWaiting(CompletableFuture<Entry> f) {
        await().during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(2)).until(() -> !f.isDone());
    }

    @Test
    void withNothingConfiguredARequestPassesUncountedAndNeverWaits_RQ10() throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            assertThat(gates.enter("c1", "m", cap(0, true, 30_000, 0), null)).isInstanceOf(Permit.class);
        }
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }

    @Test
    void aConnectionCapLetsOneRunAndTheNextStartsWhenItEnds_QC1() throws Exception {
        Limits one = cap(1, true, 30_000, 0);
        Permit first = admitted(gates.enter("c1", "m", one, null));
        CompletableFuture<Entry> second = enterLater("m", one, null);
        awaitQueued(1);
        assertThat(second).isNotDone();
        assertThat(gates.snapshot("c1").running()).isEqualTo(1);

        first.release();
        first.release();
        Permit p = admitted(second.get(5, TimeUnit.SECONDS));
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(1, 0, Map.of("m", 1)));
        p.release();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }

    @ParameterizedTest(name = "queued={0} depth={1} → {2}")
    @CsvSource({"0, 0, true", "100000, 0, true", "4, 5, true", "5, 5, false", "6, 5, false", "0, 1, true", "1, 1, false"})
    void admissionIsAPureFunctionOfQueuedAndDepth_RQ5(int queued, int depth, boolean admitted) {
        assertThat(ConnectionGates.admits(queued, depth)).isEqualTo(admitted);
    }

    @Test
    void aFullQueueRefusesAtOnceWithTheProtectedOrTheSemaphoreCode_RQ5_QC2() throws Exception {
        Permit running = admitted(gates.enter("c1", "m", cap(1, true, 30_000, 2), null));
        CompletableFuture<Entry> w1 = enterLater("m", cap(1, true, 30_000, 2), null);
        awaitQueued(1);
        CompletableFuture<Entry> w2 = enterLater("m", cap(1, true, 30_000, 2), null);
        awaitQueued(2);

        assertThat(gates.enter("c1", "m", cap(1, true, 30_000, 2), null)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        assertThat(gates.enter("c1", "m", cap(1, false, 30_000, 2), null)).isEqualTo(new Refused(Refusal.SEMAPHORE_QUEUE_FULL, 0));
        assertThat(gates.snapshot("c1").queued()).isEqualTo(2);

        running.release();
        admitted(w1.get(5, TimeUnit.SECONDS)).release();
        admitted(w2.get(5, TimeUnit.SECONDS)).release();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }

    @Test
    void aWaiterPastMaxWaitIsRefusedAndHoldsNothing_RQ1_QC2() throws Exception {
        Permit running = admitted(gates.enter("c1", "m", cap(1, true, 1_000, 0), null));
        CompletableFuture<Entry> queued = enterLater("m", cap(1, true, 1_000, 0), null);
        CompletableFuture<Entry> semaphore = enterLater("m", cap(1, false, 1_000, 0), null);
        awaitQueued(2);

        clock.advance(Duration.ofMillis(999));
        gates.recheck();
        staysWaiting(queued);
        clock.advance(Duration.ofMillis(1));
        gates.recheck();

        assertThat(queued.get(5, TimeUnit.SECONDS)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, 0));
        assertThat(semaphore.get(5, TimeUnit.SECONDS)).isEqualTo(new Refused(Refusal.SEMAPHORE_TIMEOUT, 0));
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(1, 0, Map.of("m", 1)));
        running.release();
        assertThat(gates.snapshot("c1").running()).isZero();
    }

    @Test
    void aPauseDelaysStartsAndRefusesAtOnceWhoCannotWaitItOutSayingWhenToComeBack_RQ4_RQ6() throws Exception {
        gates.pause("c1", clock.millis() + 2_000);
        assertThat(gates.pausedUntil("c1")).isEqualTo(clock.millis() + 2_000);

        // queue time 1 s < pause 2 s: refused at once, told when to come back
        assertThat(gates.enter("c1", "m", cap(0, true, 1_000, 0), null)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, 2_000));
        // queue time 5 s: waits for the pause to end, uncapped as it is
        CompletableFuture<Entry> patient = enterLater("m", cap(0, true, 5_000, 0), null);
        awaitQueued(1);
        clock.advance(Duration.ofMillis(1_999));
        gates.recheck();
        staysWaiting(patient);
        clock.advance(Duration.ofMillis(1));
        gates.recheck();
        admitted(patient.get(5, TimeUnit.SECONDS)).release();
        assertThat(gates.pausedUntil("c1")).isZero();
        assertThat(gates.enter("c1", "m", cap(0, true, 1_000, 0), null)).isInstanceOf(Permit.class);
    }

    @Test
    void aModelAtItsCapDoesNotHoldBackAnotherModel_QC2() throws Exception {
        Limits modelCapOne = new Limits(0, 1, false, 30_000, 0);
        Permit a = admitted(gates.enter("c1", "glm-5", modelCapOne, null));
        CompletableFuture<Entry> secondA = enterLater("glm-5", modelCapOne, null);
        awaitQueued(1);

        // glm-4.7 is behind a glm-5 waiter in the queue, yet starts at once
        Permit b = admitted(gates.enter("c1", "glm-4.7", modelCapOne, null));
        assertThat(gates.snapshot("c1").runningByModel()).isEqualTo(Map.of("glm-5", 1, "glm-4.7", 1));
        assertThat(secondA).isNotDone();

        a.release();
        admitted(secondA.get(5, TimeUnit.SECONDS)).release();
        b.release();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }

    @Test
    void theStrictestOfTheConnectionAndModelCapsWins_QC2() throws Exception {
        Limits both = new Limits(1, 3, false, 30_000, 0);
        Permit first = admitted(gates.enter("c1", "glm-4.7", both, null));
        CompletableFuture<Entry> second = enterLater("glm-4.7", both, null);
        awaitQueued(1);
        assertThat(second).isNotDone();
        first.release();
        admitted(second.get(5, TimeUnit.SECONDS)).release();
    }

    @Test
    void aWaiterWhoseClientLeftLeavesTheQueue() throws Exception {
        Permit running = admitted(gates.enter("c1", "m", cap(1, true, 30_000, 0), null));
        AtomicBoolean there = new AtomicBoolean(true);
        CompletableFuture<Entry> waiting = enterLater("m", cap(1, true, 30_000, 0), there::get);
        awaitQueued(1);

        there.set(false);

        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(new Refused(Refusal.CLIENT_DISCONNECTED, 0));
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(1, 0, Map.of("m", 1)));
        running.release();
    }

    @Test
    void anInterruptedWaiterLeavesTheQueueHoldingNothing() throws Exception {
        Permit running = admitted(gates.enter("c1", "m", cap(1, true, 30_000, 0), null));
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                gates.enter("c1", "m", cap(1, true, 30_000, 0), null);
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        awaitQueued(1);
        t.interrupt();
        assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(1, 0, Map.of("m", 1)));
        running.release();
        assertThat(gates.snapshot("c1").running()).isZero();
    }

    @Test
    void tryEnterStartsOnlyWhenNobodyWaitsAndTakesNothingOtherwise_QC1() throws Exception {
        Limits one = cap(1, true, 30_000, 0);
        Permit first = gates.tryEnter("c1", "m", one);
        assertThat(first).isNotNull();
        assertThat(gates.tryEnter("c1", "m", one)).as("full").isNull();
        CompletableFuture<Entry> waiting = enterLater("m", one, null);
        awaitQueued(1);
        first.release();
        Permit second = admitted(waiting.get(5, TimeUnit.SECONDS));
        assertThat(gates.tryEnter("c1", "m", one)).isNull();
        second.release();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
        assertThat(gates.tryEnter("c1", "m", cap(0, true, 30_000, 0))).as("nothing configured: the fast path").isNotNull();
    }

    @Test
    void aDeletedConnectionsGateIsDroppedWhileItsHoldersFinishNormally() throws InterruptedException {
        Permit held = admitted(gates.enter("c1", "m", cap(1, true, 30_000, 0), null));
        gates.pause("c1", clock.millis() + 60_000);
        gates.forget("c1");
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
        assertThat(gates.pausedUntil("c1")).isZero();
        held.release();
        // work still in flight on the deleted connection does not bring its gate back
        gates.pause("c1", clock.millis() + 60_000);
        gates.learn("c1", new ConnectionGates.Pacing(500, clock.millis() + 60_000, 100, 1));
        admitted(gates.enter("c1", "m", cap(1, true, 30_000, 0), null)).release();
        assertThat(gates.pausedUntil("c1")).isZero();
        assertThat(gates.learned("c1")).isNull();
    }

    @Test
    void aPauseThatOutlastsAWaitersQueueTimeRefusesItAtOnce_RQ4() throws Exception {
        Permit running = admitted(gates.enter("c1", "m", cap(1, true, 1_000, 0), null));
        CompletableFuture<Entry> waiting = enterLater("m", cap(1, true, 1_000, 0), null);
        awaitQueued(1);

        gates.pause("c1", clock.millis() + 5_000);

        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, 5_000));
        assertThat(gates.snapshot("c1").queued()).isZero();
        running.release();
    }

    @Test
    void aQueueFullOfWaitersForACappedModelDoesNotRefuseAnotherModelThatCanStart_RQ5_QC2() throws Exception {
        Limits capX = new Limits(0, 1, true, 30_000, 1);
        Permit x = admitted(gates.enter("c1", "x", capX, null));
        CompletableFuture<Entry> secondX = enterLater("x", capX, null);
        awaitQueued(1);

        Permit y = admitted(gates.enter("c1", "y", new Limits(0, 1, true, 30_000, 1), null));
        assertThat(gates.enter("c1", "x", capX, null)).as("x itself would wait: the queue is full")
                .isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));

        x.release();
        admitted(secondX.get(5, TimeUnit.SECONDS)).release();
        y.release();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }

    @Test
    void failOpenPassesTheConnectionCapOnlyAndCountsTheModel_QC3() throws Exception {
        Limits both = new Limits(1, 1, true, 30_000, 0);
        Permit a = admitted(gates.enter("c1", "a", both, null));
        Permit b = gates.failOpen("c1", "b", both);
        assertThat(b).as("only the connection cap holds b").isNotNull();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(1, 0, Map.of("a", 1, "b", 1)));
        assertThat(gates.failOpen("c1", "b", both)).as("b's own model cap is full").isNull();
        b.release();
        gates.pause("c1", clock.millis() + 1_000);
        assertThat(gates.failOpen("c1", "b", both)).as("paused").isNull();
        a.release();
        assertThat(gates.snapshot("c1")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }

    @Test
    void configuredPacingSpacesStartsEvenWithoutACap_RQ10() throws Exception {
        Limits paced = new Limits(0, 0, true, 30_000, 0, 1_000);
        admitted(gates.enter("c1", "m", paced, null)).release();
        CompletableFuture<Entry> next = enterLater("m", paced, null);
        awaitQueued(1);
        clock.advance(Duration.ofMillis(999));
        gates.recheck();
        staysWaiting(next);
        clock.advance(Duration.ofMillis(1));
        gates.recheck();
        admitted(next.get(5, TimeUnit.SECONDS)).release();
    }

    @Test
    void waitersQueuedBehindAPacedStartEachStartASpacingLaterNotAtTheirDeadline_RQ10() throws Exception {
        // no recheck() here: every waiter wakes by its own timed wait and finds the test clock moved
        Limits paced = new Limits(0, 0, true, 30_000, 0, 50);
        long t0 = clock.millis();
        List<Long> startedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<CompletableFuture<Entry>> requests = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            CompletableFuture<Entry> f = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    Entry e = gates.enter("c1", "m", paced, null);
                    startedAt.add(clock.millis());
                    admitted(e).release();
                    f.complete(e);
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            requests.add(f);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> startedAt.size() == 1 && gates.snapshot("c1").queued() == 5);
        for (int started = 2; started <= 6; started++) {
            int before = started - 1;
            clock.advance(Duration.ofMillis(49));
            await().during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(2)).until(() -> startedAt.size() == before);
            clock.advance(Duration.ofMillis(1));
            int now = started;
            await().atMost(Duration.ofSeconds(5)).until(() -> startedAt.size() >= now);
            assertThat(startedAt).as("one start per spacing").hasSize(now);
        }
        assertThat(startedAt).containsExactly(t0, t0 + 50, t0 + 100, t0 + 150, t0 + 200, t0 + 250);
        for (CompletableFuture<Entry> f : requests) {
            admitted(f.get(5, TimeUnit.SECONDS));
        }
        assertThat(gates.snapshot("c1").queued()).isZero();
    }

    @Test
    void learnedPacingAppliesUntilTheAnnouncedResetOnly_RQ10() throws Exception {
        Limits plain = cap(0, true, 30_000, 0);
        gates.learn("c1", new ConnectionGates.Pacing(500, clock.millis() + 2_000, 100, 3));
        assertThat(gates.learned("c1")).isNotNull();
        assertThat(gates.learnedAll()).containsOnlyKeys("c1");
        admitted(gates.enter("c1", "m", plain, null)).release();
        CompletableFuture<Entry> next = enterLater("m", plain, null);
        awaitQueued(1);
        clock.advance(Duration.ofMillis(500));
        gates.recheck();
        admitted(next.get(5, TimeUnit.SECONDS)).release();

        clock.advance(Duration.ofMillis(1_500));
        assertThat(gates.learned("c1")).isNull();
        // the window has reset: back to the uncounted fast path
        for (int i = 0; i < 10; i++) {
            assertThat(gates.enter("c1", "m", plain, null)).isInstanceOf(Permit.class);
        }
    }

    /**
     * Many requests at once with random caps, queue bounds, timeouts, departed clients and
     * exceptions while holding a permit: no cap is ever exceeded and every permit comes back.
     */
    @Test
    void underRandomConcurrentUseNoCapIsExceededAndEveryPermitIsReturned_QC1_QC2() throws Exception {
        ConnectionGates real = new ConnectionGates(InstantSource.system(), n -> { }, TurnSteps.NONE);
        String[] models = {"a", "b", "c"};
        int connectionCap = 3;
        Map<String, Integer> modelCaps = Map.of("a", 1, "b", 2, "c", 0);
        ConcurrentHashMap<String, AtomicInteger> runningByModel = new ConcurrentHashMap<>();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> jobs = new ArrayList<>();
            for (int t = 0; t < 64; t++) {
                long seed = t;
                jobs.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < 150; i++) {
                        String model = models[random.nextInt(models.length)];
                        Limits limits = new Limits(connectionCap, modelCaps.get(model), random.nextBoolean(), 1 + random.nextInt(20),
                                random.nextInt(4) == 0 ? 1 + random.nextInt(5) : 0);
                        boolean leaves = random.nextInt(10) == 0;
                        Entry e;
                        try {
                            e = real.enter("c", model, limits, leaves ? () -> false : () -> true);
                        } catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                        if (e instanceof Refused) {
                            refused.incrementAndGet();
                            continue;
                        }
                        Permit p = (Permit) e;
                        started.incrementAndGet();
                        int now = running.incrementAndGet();
                        int forModel = runningByModel.computeIfAbsent(model, k -> new AtomicInteger()).incrementAndGet();
                        if (now > connectionCap || (modelCaps.get(model) > 0 && forModel > modelCaps.get(model))) {
                            violations.incrementAndGet();
                        }
                        try {
                            if (random.nextInt(8) == 0) {
                                throw new IllegalStateException("the attempt failed");
                            }
                            if (random.nextBoolean()) {
                                Thread.yield();
                            }
                        } catch (IllegalStateException ignored) {
                            // an attempt that throws still releases
                        } finally {
                            runningByModel.get(model).decrementAndGet();
                            running.decrementAndGet();
                            p.release();
                            if (random.nextInt(5) == 0) {
                                p.release();
                            }
                        }
                    }
                }));
            }
            for (Future<?> f : jobs) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        assertThat(violations.get()).isZero();
        assertThat(started.get() + refused.get()).isEqualTo(64 * 150);
        assertThat(started.get()).isPositive();
        assertThat(real.snapshot("c")).isEqualTo(new ConnectionGates.Snapshot(0, 0, Map.of()));
    }
}
