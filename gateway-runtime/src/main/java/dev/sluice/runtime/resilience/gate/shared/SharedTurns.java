package dev.sluice.runtime.resilience.gate.shared;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.Turn;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import dev.sluice.runtime.resilience.gate.WaitClaim;
import java.time.InstantSource;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Shared mode of the gates (NF-6), a decorator of each connection's turn beside its boards
 * ({@link SharedGates}): a request that would wait takes its place in the queue every instance
 * counts ({@link QueuePlace}, claimed from inside the local gate's critical section through
 * {@link WaitClaim}); a request granted its local turn then takes the shared permit
 * ({@link SharedTurn}) and, on a paced connection, the shared start slot ({@link SharedSlots}),
 * the slot last, so that once it is granted nothing else delays the start. Without a shared store
 * the gates are built with {@link TurnSteps#NONE} and none of this runs.
 */
public final class SharedTurns implements TurnSteps {

    private final SharedPermits permits;
    private final SharedWaiters waiting;
    private final SharedSlots slots;
    private final InstantSource clock;

    private SharedTurns(SharedGates parts, InstantSource clock, SharedSlots.Sleeper sleeper) {
        Objects.requireNonNull(parts, "parts is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.permits = parts.permits();
        this.waiting = parts.waiting();
        this.slots = new SharedSlots(parts.pacing(), clock, sleeper);
    }

    /**
     * The steps that make the gates' caps, pacing and queue depth hold over the instances the
     * {@code parts} reach.
     *
     * @param parts what is shared with other instances
     * @param clock decides deadlines (the gates' clock)
     * @return the steps, to build {@code ConnectionGates} with
     */
    public static TurnSteps over(SharedGates parts, InstantSource clock) {
        return new SharedTurns(parts, clock, Thread::sleep);
    }

    /** As {@link #over(SharedGates, InstantSource)}, waiting for a start slot with {@code sleeper} (tests move a clock). */
    static TurnSteps over(SharedGates parts, InstantSource clock, SharedSlots.Sleeper sleeper) {
        return new SharedTurns(parts, clock, sleeper);
    }

    @Override
    public WaitClaim claim(String connectionId, Limits limits) {
        return new QueuePlace(waiting, connectionId, limits);
    }

    @Override
    public Entry granted(Turn turn, long deadline, BooleanSupplier stillWanted, WaitClaim claim) throws InterruptedException {
        Entry entry = SharedTurn.await(permits, clock, turn, deadline, stillWanted, claim);
        // the start slot last: once it is granted nothing else delays the start
        return entry instanceof Permit ? slots.await(turn, deadline, stillWanted, claim) : entry;
    }

    @Override
    public Permit grantedAtOnce(Turn turn) {
        return SharedTurn.once(permits, turn) == null ? null : slots.once(turn);
    }
}
