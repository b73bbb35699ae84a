package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
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
    private static boolean needed(SharedPermits shared, Permit p, Limits limits) {
        return shared.shared() && p != Permit.none()
                && (limits.modelCap() > 0 || p.countsConnection && limits.connectionCap() > 0);
    }

    private static SharedPermits.Held acquire(SharedPermits shared, Permit p, String connectionId, Limits limits) {
        return shared.tryAcquire(connectionId, p.model, p.countsConnection ? limits.connectionCap() : 0,
                limits.modelCap());
    }

    /** One try: the permit with its shared half, or null (the local one given back) when a shared cap is full. */
    static Permit once(SharedPermits shared, Permit p, String connectionId, Limits limits) {
        if (!needed(shared, p, limits)) {
            return p;
        }
        SharedPermits.Held held = acquire(shared, p, connectionId, limits);
        if (held == null) {
            p.release();
            return null;
        }
        p.shared = held;
        return p;
    }

    /** Tries until the shared permit is free, the deadline passed or the client left; the local permit is given back unless granted. */
    static ConnectionGates.Entry await(SharedPermits shared, InstantSource clock, Permit p, String connectionId, Limits limits,
            long deadline, BooleanSupplier stillWanted, QueuePlace place) throws InterruptedException {
        if (!needed(shared, p, limits)) {
            return p;
        }
        long pause = 2;
        long nextClientCheck = clock.millis() + ConnectionGates.CLIENT_CHECK_MS;
        boolean granted = false;
        try {
            while (true) {
                SharedPermits.Held held = acquire(shared, p, connectionId, limits);
                if (held != null) {
                    granted = true;
                    p.shared = held;
                    return p;
                }
                if (!place.join()) {
                    // RQ-5 over every instance: holding the local turn, this request would wait too
                    return QueuePlace.full(limits, 0);
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
                p.release();
            }
        }
    }
}
