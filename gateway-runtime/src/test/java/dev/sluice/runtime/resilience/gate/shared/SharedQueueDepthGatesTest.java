package dev.sluice.runtime.resilience.gate.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The queue depth over several instances (NF-6, RQ-5): two instances' gates share permits and
 * queue places through in-process fakes of {@link SharedPermits} and {@link SharedWaiters} on the
 * test clock. A request counts as waiting from the moment it would wait anywhere — in its
 * instance's queue, or holding its local turn while the shared permit is taken elsewhere — until
 * it starts or leaves.
 */
@org.junit.jupiter.api.Timeout(20)
class SharedQueueDepthGatesTest {

    private final TestClock clock = TestClock.at(Instant.parse("2026-12-01T10:00:00Z"));
    private final FakePermits permits = new FakePermits();
    private final FakeWaiters waiting = new FakeWaiters();
    private final ConnectionGates a = new ConnectionGates(clock, n -> { }, SharedTurns.over(new SharedGates(permits, SharedPacing.NONE, waiting), clock));
    private final ConnectionGates b = new ConnectionGates(clock, n -> { }, SharedTurns.over(new SharedGates(permits, SharedPacing.NONE, waiting), clock));

    /** Shared connection permits as the Redis script counts them; {@link #down} answers as an unreachable store. */
    private static final class FakePermits implements SharedPermits {
        final Map<String, Integer> held = new HashMap<>();
        volatile boolean down;

        @Override
        public synchronized Held tryAcquire(String connectionId, String model, int connectionCap, int modelCap) {
            if (down) {
                return Held.LOCAL;
            }
            if (held.getOrDefault(connectionId, 0) >= connectionCap) {
                return null;
            }
            held.merge(connectionId, 1, Integer::sum);
            AtomicBoolean released = new AtomicBoolean();
            return () -> {
                if (released.compareAndSet(false, true)) {
                    synchronized (this) {
                        held.merge(connectionId, -1, Integer::sum);
                    }
                }
            };
        }
    }

    /** Shared queue places as the Redis script counts them; {@link #down} answers as an unreachable store. */
    private static final class FakeWaiters implements SharedWaiters {
        final Set<Object> places = new HashSet<>();
        final AtomicInteger asked = new AtomicInteger();
        final AtomicInteger failedOpen = new AtomicInteger();
        volatile boolean down;

        @Override
        public synchronized Place tryJoin(String connectionId, int maxQueueDepth) {
            asked.incrementAndGet();
            if (down) {
                failedOpen.incrementAndGet();
                return Place.LOCAL;
            }
            if (places.size() >= maxQueueDepth) {
                return null;
            }
            Object token = new Object();
            places.add(token);
            return () -> {
                synchronized (this) {
                    places.remove(token);
                }
            };
        }

        synchronized int size() {
            return places.size();
        }
    }

    private static Limits capOneDepthTwo(boolean protectedQueue, long maxWaitMs) {
        return new Limits(1, 0, protectedQueue, maxWaitMs, 2);
    }

    private static Permit admitted(Entry e) {
        assertThat(e).isInstanceOf(Permit.class);
        return (Permit) e;
    }

    /** Enters on a virtual thread; the future completes when the request starts or is refused. */
    private static CompletableFuture<Entry> enterLater(ConnectionGates g, Limits limits, BooleanSupplier stillWanted) {
        CompletableFuture<Entry> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                f.complete(g.enter("c1", "m", limits, stillWanted));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        return f;
    }

    private void awaitWaiting(int n) {
        await().atMost(Duration.ofSeconds(5)).until(() -> waiting.size() == n);
    }

    @Test
    void overTwoInstancesOneRunsTwoWaitAndTheNextIsRefusedAtOnce_RQ5_NF6() throws Exception {
        Limits limits = capOneDepthTwo(true, 30_000);
        Permit running = admitted(a.enter("c1", "m", limits, null));
        // B's local turn is free: its request holds it and waits for the shared permit A holds
        CompletableFuture<Entry> onB = enterLater(b, limits, null);
        awaitWaiting(1);
        // A's own queue
        CompletableFuture<Entry> onA = enterLater(a, limits, null);
        awaitWaiting(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> a.snapshot("c1").queued() == 1);

        // each instance's own queue has room (B: none queued, A: one of two), the shared one has not
        assertThat(b.enter("c1", "m", limits, null)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        assertThat(a.enter("c1", "m", limits, null)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        assertThat(b.enter("c1", "m", capOneDepthTwo(false, 30_000), null)).isEqualTo(new Refused(Refusal.SEMAPHORE_QUEUE_FULL, 0));
        assertThat(waiting.size()).as("a refused request holds no place").isEqualTo(2);
        assertThat(onA).isNotDone();
        assertThat(onB).isNotDone();

        // a start frees its place: one waiter starts, the other still waits, one new request may wait again
        running.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> onA.isDone() || onB.isDone());
        CompletableFuture<Entry> first = onA.isDone() ? onA : onB;
        CompletableFuture<Entry> second = first == onA ? onB : onA;
        Permit started = admitted(first.get());
        awaitWaiting(1);
        CompletableFuture<Entry> third = enterLater(first == onA ? b : a, limits, null);
        awaitWaiting(2);
        started.release();
        admitted(second.get(5, TimeUnit.SECONDS)).release();
        admitted(third.get(5, TimeUnit.SECONDS)).release();
        awaitWaiting(0);
        assertThat(permits.held).containsEntry("c1", 0);
    }

    @Test
    void aWaiterThatTimesOutOrWhoseClientLeftFreesItsPlace_RQ1_RQ5_NF6() throws Exception {
        Limits limits = capOneDepthTwo(true, 1_000);
        Permit running = admitted(a.enter("c1", "m", limits, null));
        CompletableFuture<Entry> onB = enterLater(b, limits, null);
        AtomicBoolean clientThere = new AtomicBoolean(true);
        CompletableFuture<Entry> onA = enterLater(a, capOneDepthTwo(true, 30_000), clientThere::get);
        awaitWaiting(2);
        assertThat(b.enter("c1", "m", limits, null)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));

        clientThere.set(false);
        assertThat(onA.get(5, TimeUnit.SECONDS)).isEqualTo(new Refused(Refusal.CLIENT_DISCONNECTED, 0));
        awaitWaiting(1);
        assertThat(a.snapshot("c1").queued()).isZero();

        clock.advance(Duration.ofMillis(1_000));
        assertThat(onB.get(5, TimeUnit.SECONDS)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, 0));
        awaitWaiting(0);
        assertThat(b.snapshot("c1").running()).as("the local turn is given back").isZero();

        // both places free again: two may wait, the third is refused
        CompletableFuture<Entry> w1 = enterLater(b, capOneDepthTwo(true, 30_000), null);
        awaitWaiting(1);
        CompletableFuture<Entry> w2 = enterLater(a, capOneDepthTwo(true, 30_000), null);
        awaitWaiting(2);
        assertThat(a.enter("c1", "m", limits, null)).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        running.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> w1.isDone() || w2.isDone());
        admitted((w1.isDone() ? w1 : w2).get()).release();
        admitted(w1.get(5, TimeUnit.SECONDS)).release();
        admitted(w2.get(5, TimeUnit.SECONDS)).release();
        awaitWaiting(0);
    }

    @Test
    void aRequestThatStartsAtOnceOrWaitsInAnUnboundedQueueNeverAsksForAPlace_RQ5_RQ10_NF6() throws Exception {
        Permit p = admitted(a.enter("c1", "m", capOneDepthTwo(true, 30_000), null));
        p.release();
        admitted(b.enter("c1", "m", capOneDepthTwo(true, 30_000), null)).release();
        Permit running = admitted(a.enter("c1", "m", new Limits(1, 0, true, 30_000, 0), null));
        CompletableFuture<Entry> unbounded = enterLater(b, new Limits(1, 0, true, 30_000, 0), null);
        await().during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(2)).until(() -> !unbounded.isDone());
        running.release();
        admitted(unbounded.get(5, TimeUnit.SECONDS)).release();
        assertThat(waiting.asked).hasValue(0);
    }

    @Test
    void aRequestWhoseSharedStartSlotIsLaterWaitsForItAsAQueuedOne_RQ5_RQ10_NF6() throws Exception {
        // start slots as the Redis script hands them out; the wait for one moves the test clock
        Map<String, Long> last = new HashMap<>();
        SharedPacing slots = (connectionId, spacingMs, maxDelayMs) -> {
            synchronized (last) {
                long now = clock.millis();
                long next = last.containsKey(connectionId) ? Math.max(now, last.get(connectionId) + spacingMs) : now;
                last.put(connectionId, next);
                return new SharedPacing.Slot(SharedPacing.Kind.GRANTED, next - now);
            }
        };
        ConnectionGates pacedA = new ConnectionGates(clock, n -> { }, SharedTurns.over(new SharedGates(SharedPermits.NONE, slots, waiting), clock, ms -> clock.advance(Duration.ofMillis(ms))));
        ConnectionGates pacedB = new ConnectionGates(clock, n -> { }, SharedTurns.over(new SharedGates(SharedPermits.NONE, slots, waiting), clock, ms -> clock.advance(Duration.ofMillis(ms))));
        Limits paced = new Limits(0, 0, true, 30_000, 1, 100);
        admitted(pacedA.enter("c1", "m", paced, null)).release();
        assertThat(waiting.asked).as("a start at once asks for no place").hasValue(0);
        // another instance's request holds the only place
        SharedWaiters.Place elsewhere = waiting.tryJoin("c1", 1);
        assertThat(pacedB.enter("c1", "m", paced, null)).as("B's turn is free, its slot 100 ms ahead")
                .isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        assertThat(pacedB.snapshot("c1").running()).as("the local turn is given back").isZero();
        elsewhere.leave();
        // A's own spacing is over; the shared slots are at t0 and (spent by B's refused request) t0 + 100
        clock.advance(Duration.ofMillis(100));
        long before = clock.millis();
        admitted(pacedA.enter("c1", "m", paced, null)).release();
        assertThat(clock.millis() - before).as("waited for its slot, holding a place meanwhile").isEqualTo(100);
        assertThat(waiting.asked).as("the other instance's place, B's refused one, A's").hasValue(3);
        assertThat(waiting.size()).isZero();
    }

    @Test
    void withTheStoreUnreachableEachInstanceBoundsOnlyItsOwnQueueAndCountsIt_RQ5_NF6() throws Exception {
        permits.down = true;
        waiting.down = true;
        Limits limits = capOneDepthTwo(true, 30_000);
        Permit[] running = {admitted(a.enter("c1", "m", limits, null)), admitted(b.enter("c1", "m", limits, null))};
        CompletableFuture<?>[] waiters = new CompletableFuture<?>[4];
        int i = 0;
        for (ConnectionGates g : new ConnectionGates[] {a, b}) {
            waiters[i++] = enterLater(g, limits, null);
            await().atMost(Duration.ofSeconds(5)).until(() -> g.snapshot("c1").queued() == 1);
            waiters[i++] = enterLater(g, limits, null);
            await().atMost(Duration.ofSeconds(5)).until(() -> g.snapshot("c1").queued() == 2);
            assertThat(g.enter("c1", "m", limits, null)).as("the instance's own depth").isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_FULL, 0));
        }
        assertThat(waiting.failedOpen).as("each queued request counted").hasValue(4);
        running[0].release();
        running[1].release();
        for (CompletableFuture<?> w : waiters) {
            admitted((Entry) w.get(5, TimeUnit.SECONDS)).release();
        }
    }
}
