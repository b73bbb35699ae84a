package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Pacing;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refusal;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Refused;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Snapshot;
import dev.sluice.runtime.resilience.gate.GateWaiters.Waiter;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * One connection's gate: decides, under one lock, whether a request starts at once, waits in the
 * queue, or is refused. Its state lives in {@link GatePermits} (caps), {@link GatePauses} (RQ-4),
 * {@link GatePacing} (RQ-10) and {@link GateWaiters} (the FIFO queue); only this class holds the
 * lock that keeps them consistent with one another, so a request's connection and model permits
 * are checked and taken in one step.
 */
final class Gate {

    private final InstantSource clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final GatePermits permits = new GatePermits();
    private final GatePauses pauses = new GatePauses();
    private final GatePacing pacing = new GatePacing();
    private final GateWaiters waiters = new GateWaiters(this::mayStart);

    Gate(InstantSource clock) {
        this.clock = clock;
    }

    /** Nothing to enforce for an ungated request: no pause, no learned pacing, nobody queued. */
    boolean idle(long now) {
        return pauses.over(now) && waiters.queued() == 0 && pacing.over(now);
    }

    Entry enter(String model, Limits limits, BooleanSupplier stillWanted, WaitClaim claim) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.millis() + limits.maxWaitMs();
            while (true) {
                long now = clock.millis();
                // start at once when nothing stops this request and no waiter ahead could start now:
                // waiters held by their own model's cap do not hold back (nor fill the queue for) others
                if (mayStart(model, limits, now) && (waiters.isEmpty() || waiters.firstStartable(now) == null)) {
                    return take(model, true);
                }
                if (!ConnectionGates.admits(waiters.size(), limits.maxQueueDepth())) {
                    return Refused.queueFull(limits, Math.max(0, pauses.heldUntil(model) - now));
                }
                long paused = pauses.heldUntil(model);
                if (paused > deadline) {
                    // RQ-4: the pause outlasts this caller's queue time: refuse at once
                    return new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, paused - now);
                }
                if (!claim.pending()) {
                    break;
                }
                // RQ-5: the claim to wait is made without the lock, then all is looked at again
                if (!claimedOutsideTheLock(claim)) {
                    return Refused.queueFull(limits, Math.max(0, pauses.heldUntil(model) - clock.millis()));
                }
            }
            Waiter w = new Waiter(model, limits, lock.newCondition());
            waiters.add(w);
            try {
                return await(w, deadline, stillWanted);
            } finally {
                if (waiters.remove(w)) {
                    // leaving may let the next waiter be first
                    waiters.signalFirstStartable(clock.millis());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Waits in the queue (lock held) until {@code w} may start, must be refused, or its client left. */
    private Entry await(Waiter w, long deadline, BooleanSupplier stillWanted) throws InterruptedException {
        String model = w.model;
        Limits limits = w.limits;
        boolean look = true;
        while (true) {
            long now = clock.millis();
            if (look) {
                w.signalled = false;
            }
            if (look && waiters.firstStartable(now) == w) {
                waiters.remove(w);
                Permit p = take(model, true);
                // the next in line may be able to start too (another model)
                waiters.signalFirstStartable(now);
                return p;
            }
            long heldUntil = pauses.heldUntil(model);
            if (heldUntil > deadline) {
                // RQ-4: a pause that came while this request waited outlasts its queue time
                return new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, heldUntil - now);
            }
            if (now >= deadline) {
                return new Refused(heldUntil > now || limits.protectedQueue() ? Refusal.RATE_LIMIT_QUEUE_TIMEOUT
                        : Refusal.SEMAPHORE_TIMEOUT, Math.max(0, heldUntil - now));
            }
            if (stillWanted != null && !askedOutsideTheLock(stillWanted)) {
                return new Refused(Refusal.CLIENT_DISCONNECTED, 0);
            }
            if (w.signalled) {
                // told to look again while the lock was let go to ask the client
                look = true;
                continue;
            }
            // a timed wake is due at the deadline, the pause's end or the next paced start
            long lookAt = deadline;
            if (heldUntil > now) {
                lookAt = Math.min(lookAt, heldUntil);
            }
            long paced = pacing.nextStart(limits, now);
            long spacing = pacing.spacing(limits, now);
            if (paced <= now && spacing > 0) {
                // a waiter ahead takes the start due now: this one's comes a spacing later at the
                // soonest, and no release will say so
                paced = now + spacing;
            }
            if (paced > now) {
                lookAt = Math.min(lookAt, paced);
            }
            long waitMs = lookAt - now;
            if (stillWanted != null) {
                waitMs = Math.min(waitMs, ConnectionGates.CLIENT_CHECK_MS);
            }
            w.turn.await(Math.max(1, waitMs), TimeUnit.MILLISECONDS);
            // look at the queue again when told to or once a timed reason to has come due
            look = w.signalled || clock.millis() >= lookAt;
        }
    }

    /** Makes the request's claim to wait without holding the gate's lock meanwhile (it may be a round trip). */
    private boolean claimedOutsideTheLock(WaitClaim claim) {
        lock.unlock();
        try {
            return claim.claim();
        } finally {
            lock.lock();
        }
    }

    /** Asks whether the client is still there without holding the gate's lock meanwhile. */
    private boolean askedOutsideTheLock(BooleanSupplier stillWanted) {
        lock.unlock();
        try {
            return stillWanted.getAsBoolean();
        } finally {
            lock.lock();
        }
    }

    /**
     * QC-3 fail-open: a permit that holds the model's share but not the connection's, taken only
     * when nothing but the connection's cap (or its queue) holds the request.
     */
    Permit failOpen(String model, Limits limits) {
        lock.lock();
        try {
            long now = clock.millis();
            boolean onlyTheConnectionCap = pauses.heldUntil(model) <= now && pacing.nextStart(limits, now) <= now
                    && permits.modelFree(model, limits);
            return onlyTheConnectionCap ? take(model, false) : null;
        } finally {
            lock.unlock();
        }
    }

    Permit tryEnter(String model, Limits limits) {
        lock.lock();
        try {
            return waiters.isEmpty() && mayStart(model, limits, clock.millis()) ? take(model, true) : null;
        } finally {
            lock.unlock();
        }
    }

    /** Whether every limit lets a request start now (lock held). */
    private boolean mayStart(String model, Limits limits, long now) {
        return pauses.heldUntil(model) <= now
                && pacing.nextStart(limits, now) <= now
                && permits.connectionFree(limits)
                && permits.modelFree(model, limits);
    }

    private Permit take(String model, boolean countsConnection) {
        long now = clock.millis();
        pacing.started(now);
        permits.take(model, countsConnection);
        return new Permit(this, model, countsConnection, now);
    }

    /** The spacing in force now (lock-free): 0 when the connection is not paced. */
    long spacing(Limits limits, long now) {
        return pacing.spacing(limits, now);
    }

    /** A request given its turn now really starts at {@code at}: local spacing counts from there. */
    void startsAt(long at) {
        lock.lock();
        try {
            pacing.startsAt(at);
        } finally {
            lock.unlock();
        }
    }

    /** The turn taken at {@code takenAt} did not start: its start is forgotten and a waiter it held back may go. */
    void notStarted(long takenAt) {
        lock.lock();
        try {
            if (pacing.undo(takenAt)) {
                waiters.signalFirstStartable(clock.millis());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Returns a permit's share (from {@link Permit#release()}) and wakes whoever may start now. */
    void release(String model, boolean countsConnection) {
        lock.lock();
        try {
            permits.release(model, countsConnection);
            waiters.signalFirstStartable(clock.millis());
        } finally {
            lock.unlock();
        }
    }

    /** Pauses the connection ({@code model} null) or one model of it until {@code untilMs}. */
    void pause(String model, long untilMs) {
        lock.lock();
        try {
            if (model == null) {
                pauses.pauseConnection(untilMs);
            } else {
                pauses.pauseModel(model, untilMs, clock.millis());
            }
            // waiters whose queue time the pause outlasts are refused at once (RQ-4)
            waiters.signalEveryone();
        } finally {
            lock.unlock();
        }
    }

    /** Replaces the learned pacing (no lock: it is one volatile value). */
    void learn(Pacing p) {
        pacing.learn(p);
    }

    /** The learned pacing, possibly expired, or null. */
    Pacing learned() {
        return pacing.learned();
    }

    /** When the connection's own pause ends (may be past). */
    long pausedUntil() {
        return pauses.connectionPausedUntil();
    }

    /** Wakes every waiter to look at the clock again. */
    void signal() {
        lock.lock();
        try {
            waiters.signalEveryone();
        } finally {
            lock.unlock();
        }
    }

    Map<String, Long> pausedModels(long now) {
        if (!pauses.anyModelPausedAfter(now)) {
            return Map.of();
        }
        lock.lock();
        try {
            return pauses.models(now);
        } finally {
            lock.unlock();
        }
    }

    Snapshot snapshot() {
        lock.lock();
        try {
            return permits.snapshot(waiters.size());
        } finally {
            lock.unlock();
        }
    }
}
