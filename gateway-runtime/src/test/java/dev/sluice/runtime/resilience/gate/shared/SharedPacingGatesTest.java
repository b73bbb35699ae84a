package dev.sluice.runtime.resilience.gate.shared;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Pacing;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Pacing over several instances (NF-6, RQ-10): two instances' gates share start slots through an
 * in-process {@link SharedPacing} on the test clock; a request's wait for its slot moves that clock.
 */
@org.junit.jupiter.api.Timeout(10)
class SharedPacingGatesTest {

    private static final long SPACING = 100;

    private final TestClock clock = TestClock.at(Instant.parse("2026-12-01T10:00:00Z"));
    private final long t0 = clock.millis();
    private final FakePacing store = new FakePacing();
    private final ConnectionGates a = instance();
    private final ConnectionGates b = instance();

    /** The shared store as the Redis script behaves, on the test clock; {@link #down} answers as an unreachable one. */
    private final class FakePacing implements SharedPacing {
        final Map<String, Long> last = new HashMap<>();
        final List<Long> asked = new CopyOnWriteArrayList<>();
        volatile boolean down;

        @Override
        public synchronized Slot next(String connectionId, long spacingMs, long maxDelayMs) {
            asked.add(spacingMs);
            if (down) {
                return Slot.LOCAL;
            }
            long now = clock.millis();
            Long l = last.get(connectionId);
            long next = l == null ? now : Math.max(now, l + spacingMs);
            if (next - now > maxDelayMs) {
                return new Slot(Kind.BEYOND, next - now);
            }
            last.put(connectionId, next);
            return new Slot(Kind.GRANTED, next - now);
        }
    }

    private ConnectionGates instance() {
        return new ConnectionGates(clock, n -> { }, SharedTurns.over(SharedGates.NONE.withPacing(store), clock, ms -> clock.advance(Duration.ofMillis(ms))));
    }

    private static Limits paced(long maxWaitMs) {
        return new Limits(1, 0, true, maxWaitMs, 0, SPACING);
    }

    /** Enters and returns when the request started (its permit released at once), ms after t0. */
    private long startedAt(ConnectionGates g) throws InterruptedException {
        Entry e = g.enter("c1", "m", paced(30_000), null);
        assertThat(e).isInstanceOf(Permit.class);
        ((Permit) e).release();
        return clock.millis() - t0;
    }

    @Test
    void startsOverTwoInstancesAreSpacedByTheSharedSlots_NF6_RQ10() throws InterruptedException {
        assertThat(List.of(startedAt(a), startedAt(b), startedAt(a), startedAt(b))).containsExactly(0L, 100L, 200L, 300L);
        assertThat(store.asked).containsOnly(SPACING);
    }

    @Test
    void aSlotBeyondTheWaitBoundIsRefusedWithTheQueueTimeoutAndNotTaken_RQ1_NF6() throws InterruptedException {
        startedAt(a);
        clock.advance(Duration.ofMillis(50));
        Entry refused = b.enter("c1", "m", paced(10), null);
        assertThat(refused).isEqualTo(new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, 50));
        assertThat(store.last).containsEntry("c1", t0);
        assertThat(b.snapshot("c1").running()).as("the local turn is given back").isZero();
        clock.advance(Duration.ofMillis(50));
        // neither the shared slot nor B's own spacing remembers the start that did not happen
        assertThat(b.tryEnter("c1", "m", paced(30_000))).isNotNull();
        assertThat(store.last).containsEntry("c1", t0 + 100);
    }

    @Test
    void aRequestThatMayOnlyStartAtOnceTakesNoLaterSlot_NF6() throws InterruptedException {
        startedAt(a);
        assertThat(b.tryEnter("c1", "m", paced(30_000))).isNull();
        assertThat(store.last).containsEntry("c1", t0);
        assertThat(b.snapshot("c1").running()).isZero();
        clock.advance(Duration.ofMillis(SPACING));
        assertThat(b.tryEnter("c1", "m", paced(30_000))).isNotNull();
    }

    @Test
    void aQuotaShareFailOpenIsHeldByTheSharedSlotToo_QC3_NF6() throws InterruptedException {
        startedAt(a);
        assertThat(b.failOpen("c1", "m", paced(30_000))).isNull();
        clock.advance(Duration.ofMillis(SPACING));
        assertThat(b.failOpen("c1", "m", paced(30_000))).isNotNull();
    }

    @Test
    void withTheStoreUnreachableEachInstanceSpacesItsOwnStarts_NF6() throws InterruptedException {
        store.down = true;
        assertThat(List.of(startedAt(a), startedAt(b))).as("per instance: both at once").containsExactly(0L, 0L);
        assertThat(a.tryEnter("c1", "m", paced(30_000))).as("A's own spacing").isNull();
        clock.advance(Duration.ofMillis(SPACING));
        assertThat(a.tryEnter("c1", "m", paced(30_000))).isNotNull();
    }

    @Test
    void afterAGrantedSlotTheLocalFallbackSpacesFromTheSlotNotFromTheTurn_NF6() throws InterruptedException {
        startedAt(a);
        assertThat(startedAt(b)).isEqualTo(100);
        store.down = true;
        clock.advance(Duration.ofMillis(50));
        assertThat(b.tryEnter("c1", "m", paced(30_000))).as("150 ms: 50 after B's real start").isNull();
        clock.advance(Duration.ofMillis(50));
        assertThat(b.tryEnter("c1", "m", paced(30_000))).isNotNull();
    }

    @Test
    void unpacedConnectionsNeverAskTheSharedStoreAndLearnedPacingDoes_RQ10_NF6() throws InterruptedException {
        Limits capOnly = new Limits(1, 0, true, 30_000, 0);
        for (int i = 0; i < 5; i++) {
            ((Permit) a.enter("c1", "m", capOnly, null)).release();
            ((Permit) b.tryEnter("c1", "m", capOnly)).release();
        }
        assertThat(store.asked).isEmpty();
        a.learn("c1", new Pacing(250, t0 + 60_000, 100, 3));
        clock.advance(Duration.ofMillis(250));
        ((Permit) a.enter("c1", "m", capOnly, null)).release();
        assertThat(store.asked).containsExactly(250L);
    }

    @Test
    void aClientThatLeavesWhileWaitingForItsSlotGivesItsTurnBack_NF6() throws InterruptedException {
        startedAt(a);
        Entry gone = b.enter("c1", "m", paced(30_000), () -> false);
        assertThat(gone).isEqualTo(new Refused(Refusal.CLIENT_DISCONNECTED, 0));
        assertThat(b.snapshot("c1").running()).isZero();
        assertThat(clock.millis()).as("it did not wait out its slot").isEqualTo(t0);
    }
}
