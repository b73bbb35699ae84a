package dev.sluice.runtime.resilience.gate.shared;

import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.Turn;
import dev.sluice.runtime.resilience.gate.WaitClaim;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The second half of a turn when caps hold over several instances (NF-6): a request that got
 * its local permit — after today's local queue, FIFO and all — takes the shared one too before
 * it may start. Waiting for it is polling with a short backoff (2 ms doubling to
 * {@link #MAX_POLL_MS}) within the request's own deadline: the local queue already lets only the
 * head of each instance's line compete, so at most one poller per instance and connection exists.
 */
final class SharedTurn {

    /** The longest pause between two tries for a shared permit. */
    static final long MAX_POLL_MS = 25;

    private SharedTurn() {
    }

    /** Whether a request under these limits needs a shared permit at all. */
    private static boolean needed(SharedPermits shared, Turn turn) {
        Limits limits = turn.limits();
        return shared.shared() && (limits.modelCap() > 0 || turn.countsConnection() && limits.connectionCap() > 0);
    }

    private static SharedPermits.Held acquire(SharedPermits shared, Turn turn) {
        Limits limits = turn.limits();
        return shared.tryAcquire(turn.connectionId(), turn.model(), turn.countsConnection() ? limits.connectionCap() : 0,
                limits.modelCap());
    }

    /** One try: the permit with its shared half, or null (the local one given back) when a shared cap is full. */
    static Permit once(SharedPermits shared, Turn turn) {
        if (!needed(shared, turn)) {
            return turn.permit();
        }
        SharedPermits.Held held = acquire(shared, turn);
        if (held == null) {
            turn.release();
            return null;
        }
        turn.alsoHolds(held::release);
        return turn.permit();
    }

    /** Tries until the shared permit is free, the deadline passed or the client left; the local permit is given back unless granted. */
    static Entry await(SharedPermits shared, InstantSource clock, Turn turn, long deadline, BooleanSupplier stillWanted,
            WaitClaim place) throws InterruptedException {
        if (!needed(shared, turn)) {
            return turn.permit();
        }
        Limits limits = turn.limits();
        long pause = 2;
        long nextClientCheck = clock.millis() + ConnectionGates.CLIENT_CHECK_MS;
        boolean granted = false;
        try {
            while (true) {
                SharedPermits.Held held = acquire(shared, turn);
                if (held != null) {
                    granted = true;
                    turn.alsoHolds(held::release);
                    return turn.permit();
                }
                if (!place.claim()) {
                    // RQ-5 over every instance: holding the local turn, this request would wait too
                    return Refused.queueFull(limits, 0);
                }
                long now = clock.millis();
                if (now >= deadline) {
                    return new Refused(limits.protectedQueue() ? Refusal.RATE_LIMIT_QUEUE_TIMEOUT : Refusal.SEMAPHORE_TIMEOUT, 0);
                }
                if (stillWanted != null && now >= nextClientCheck) {
                    if (!stillWanted.getAsBoolean()) {
                        return new Refused(Refusal.CLIENT_DISCONNECTED, 0);
                    }
                    nextClientCheck = now + ConnectionGates.CLIENT_CHECK_MS;
                }
                TimeUnit.MILLISECONDS.sleep(Math.max(1, Math.min(pause, deadline - now)));
                pause = Math.min(pause * 2, MAX_POLL_MS);
            }
        } finally {
            if (!granted) {
                turn.release();
            }
        }
    }
}
