package dev.sluice.runtime.resilience.gate.shared;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The gates' shared-mode decorator (issue 35) over fake boards: it takes the shared permit with
 * the local turn and gives it back with it, refuses a turn a full shared cap holds, and claims a
 * request's shared queue place from inside the local gate before the request waits.
 */
class SharedTurnsTest {

    private final InstantSource clock = InstantSource.system();

    /** Permits as a board counts them: one cap over every instance. */
    private static final class FakePermits implements SharedPermits {
        final List<String> asked = new ArrayList<>();
        int held;
        int cap = Integer.MAX_VALUE;

        @Override
        public synchronized Held tryAcquire(String connectionId, String model, int connectionCap, int modelCap) {
            asked.add(connectionId + "/" + model + "/" + connectionCap + "/" + modelCap);
            if (held >= Math.min(cap, connectionCap)) {
                return null;
            }
            held++;
            boolean[] released = {false};
            return () -> {
                synchronized (FakePermits.this) {
                    if (!released[0]) {
                        released[0] = true;
                        held--;
                    }
                }
            };
        }
    }

    /** Queue places as a board counts them. */
    private static final class FakeWaiters implements SharedWaiters {
        final List<String> joins = new ArrayList<>();
        int free;

        @Override
        public synchronized Place tryJoin(String connectionId, int maxQueueDepth) {
            joins.add(connectionId + "/" + maxQueueDepth);
            if (free == 0) {
                return null;
            }
            free--;
            return () -> {
                synchronized (FakeWaiters.this) {
                    free++;
                }
            };
        }
    }

    private ConnectionGates gates(SharedPermits permits, SharedWaiters waiting) {
        TurnSteps steps = SharedTurns.over(new SharedGates(permits, SharedPacing.NONE, waiting), clock);
        return new ConnectionGates(clock, n -> { }, steps);
    }

    @Test
    void theSharedPermitIsTakenWithTheLocalTurnAndGivenBackWithIt_NF6() throws InterruptedException {
        FakePermits permits = new FakePermits();
        ConnectionGates g = gates(permits, SharedWaiters.NONE);
        Entry e = g.enter("c1", "m", new Limits(2, 1, false, 1_000, 0), null);

        assertThat(e).isInstanceOf(Permit.class);
        assertThat(permits.asked).containsExactly("c1/m/2/1");
        assertThat(permits.held).isEqualTo(1);
        ((Permit) e).release();
        assertThat(permits.held).isZero();
        assertThat(g.snapshot("c1").running()).isZero();
    }

    @Test
    void aTurnAFullSharedCapHoldsIsRefusedAndTheLocalOneGivenBack_NF6() {
        FakePermits permits = new FakePermits();
        permits.cap = 0;
        ConnectionGates g = gates(permits, SharedWaiters.NONE);

        assertThat(g.tryEnter("c1", "m", new Limits(1, 0, false, 1_000, 0))).isNull();
        assertThat(permits.asked).containsExactly("c1/m/1/0");
        assertThat(g.snapshot("c1").running()).isZero();
    }

    @Test
    void aRequestThatWouldWaitClaimsItsSharedPlaceFirstAndAFullSharedQueueRefusesIt_RQ5_NF6() throws InterruptedException {
        FakeWaiters waiting = new FakeWaiters();
        ConnectionGates g = gates(SharedPermits.NONE, waiting);
        Limits limits = new Limits(1, 0, true, 200, 1);
        Permit first = (Permit) g.enter("c1", "m", limits, null);
        assertThat(waiting.joins).as("a request that starts at once claims nothing").isEmpty();

        // the local queue has room; the queue every instance counts has none
        Entry second = g.enter("c1", "m", limits, null);

        assertThat(waiting.joins).containsExactly("c1/1");
        assertThat(second).isInstanceOf(Refused.class);
        assertThat(((Refused) second).refusal()).isEqualTo(Refusal.RATE_LIMIT_QUEUE_FULL);
        assertThat(g.snapshot("c1").queued()).isZero();
        first.release();
    }

    @Test
    void aClaimedPlaceIsGivenUpWhenTheRequestLeaves_RQ5_NF6() throws InterruptedException {
        FakeWaiters waiting = new FakeWaiters();
        waiting.free = 1;
        ConnectionGates g = gates(SharedPermits.NONE, waiting);
        Limits limits = new Limits(1, 0, true, 50, 1);
        Permit first = (Permit) g.enter("c1", "m", limits, null);

        Entry second = g.enter("c1", "m", limits, null);

        assertThat(waiting.joins).containsExactly("c1/1");
        assertThat(((Refused) second).refusal()).isEqualTo(Refusal.RATE_LIMIT_QUEUE_TIMEOUT);
        assertThat(waiting.free).as("the place is given back when enter returns").isEqualTo(1);
        first.release();
    }
}
