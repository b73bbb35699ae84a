package dev.sluice.runtime.resilience.gate.shared;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.Turn;
import dev.sluice.runtime.resilience.gate.WaitClaim;
import java.time.InstantSource;
import java.util.function.BooleanSupplier;

/**
 * The last step of a turn on a paced connection when pacing holds over several instances (NF-6,
 * RQ-10): a request that got its local turn — the local queue and its spacing first, then any
 * shared permit — takes the connection's next start slot from {@link SharedPacing} and waits until
 * it, within its own queue-wait bound (RQ-1). A slot beyond that bound is not taken: the request
 * is refused with {@link Refusal#RATE_LIMIT_QUEUE_TIMEOUT}, as the local queue refuses one a pause
 * outlasts. The store's answer is authoritative for the local record of the last start too
 * ({@link Turn#startsAt}, {@link Turn#giveBack}); unreachable, the local spacing already applied
 * is all there is (fail open to per-instance pacing).
 *
 * <p>Nothing is asked for an unpaced connection, nor without a shared store: the common case costs
 * one volatile read.
 */
final class SharedSlots {

    /** Waits the given milliseconds (a test moves its clock instead). */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    private final SharedPacing shared;
    private final InstantSource clock;
    private final Sleeper sleeper;

    SharedSlots(SharedPacing shared, InstantSource clock, Sleeper sleeper) {
        this.shared = java.util.Objects.requireNonNull(shared, "shared is null");
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /** The spacing to share, or 0 when there is nothing to ask (no store, no pacing). */
    private long spacing(Turn turn, long now) {
        return shared.shared() ? turn.spacing(now) : 0;
    }

    /**
     * One try for a request that may only start at once: the permit when the connection's next slot
     * is now (or the store is unreachable), else null with the local turn given back and no slot taken.
     */
    Permit once(Turn turn) {
        long spacing = spacing(turn, clock.millis());
        if (spacing == 0) {
            return turn.permit();
        }
        SharedPacing.Slot slot = shared.next(turn.connectionId(), spacing, 0);
        if (slot.kind() == SharedPacing.Kind.GRANTED) {
            turn.startsAt(clock.millis() + slot.delayMs());
            return turn.permit();
        }
        if (slot.kind() == SharedPacing.Kind.BEYOND) {
            turn.giveBack();
            return null;
        }
        // unreachable: a failing call may have taken up to its bound; the local spacing counts from the real start
        turn.startsAt(clock.millis());
        return turn.permit();
    }

    /**
     * Takes the next slot and waits for it, within {@code deadline}; the local turn is given back
     * unless the request starts.
     */
    Entry await(Turn turn, long deadline, BooleanSupplier stillWanted, WaitClaim place) throws InterruptedException {
        long now = clock.millis();
        long spacing = spacing(turn, now);
        if (spacing == 0) {
            return turn.permit();
        }
        SharedPacing.Slot slot = shared.next(turn.connectionId(), spacing, Math.max(0, deadline - now));
        switch (slot.kind()) {
            case LOCAL -> {
                turn.startsAt(clock.millis());
                return turn.permit();
            }
            case BEYOND -> {
                turn.giveBack();
                return new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, slot.delayMs());
            }
            case GRANTED -> {
                long startAt = clock.millis() + slot.delayMs();
                turn.startsAt(startAt);
                if (slot.delayMs() > 0 && !place.claim()) {
                    // RQ-5 over every instance: the slot stays spent, as for a client that left
                    turn.release();
                    return Refused.queueFull(turn.limits(), 0);
                }
                return waitFor(turn, startAt, stillWanted);
            }
            default -> throw new IllegalStateException("unknown slot " + slot);
        }
    }

    /** Waits until the slot, asking after the client every {@link ConnectionGates#CLIENT_CHECK_MS}. */
    private Entry waitFor(Turn turn, long startAt, BooleanSupplier stillWanted) throws InterruptedException {
        boolean started = false;
        try {
            for (long left = startAt - clock.millis(); left > 0; left = startAt - clock.millis()) {
                if (stillWanted != null && !stillWanted.getAsBoolean()) {
                    // the slot stays spent: another instance may already be spaced after it
                    return new Refused(Refusal.CLIENT_DISCONNECTED, 0);
                }
                sleeper.sleep(stillWanted == null ? left : Math.min(left, ConnectionGates.CLIENT_CHECK_MS));
            }
            started = true;
            return turn.permit();
        } finally {
            if (!started) {
                turn.release();
            }
        }
    }
}
