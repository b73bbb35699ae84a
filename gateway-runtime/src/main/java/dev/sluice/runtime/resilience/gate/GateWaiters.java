package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;

/**
 * The FIFO queue of one connection's gate (RQ-1, RQ-5): who waits, in arrival order, and whom to
 * wake. Each waiter parks on a condition of its own, so a release wakes only the waiter that may
 * start. Every call is made under the owning {@link Gate}'s lock, except {@link #queued()}, which
 * the lock-free fast path reads.
 */
final class GateWaiters {

    /** Whether a request for {@code model} under {@code limits} may start at {@code now}. */
    @FunctionalInterface
    interface StartCheck {
        boolean mayStart(String model, Limits limits, long now);
    }

    private final List<Waiter> waiters = new ArrayList<>();
    private final StartCheck startCheck;
    /** The queue's length, published for the fast path. */
    private volatile int queued;

    GateWaiters(StartCheck startCheck) {
        this.startCheck = startCheck;
    }

    /** Requests waiting now, read without the lock. */
    int queued() {
        return queued;
    }

    int size() {
        return waiters.size();
    }

    boolean isEmpty() {
        return waiters.isEmpty();
    }

    /** Joins the end of the queue. */
    void add(Waiter w) {
        waiters.add(w);
        queued = waiters.size();
    }

    /** Leaves the queue; false when {@code w} had already left it. */
    boolean remove(Waiter w) {
        if (!waiters.remove(w)) {
            return false;
        }
        queued = waiters.size();
        return true;
    }

    /**
     * The first waiter in queue order that may start now, or null: a waiter held by its model's
     * cap does not hold back a waiter for another model.
     */
    Waiter firstStartable(long now) {
        for (Waiter w : waiters) {
            if (startCheck.mayStart(w.model, w.limits, now)) {
                return w;
            }
        }
        return null;
    }

    /** Wakes the one waiter that may start now, if any. */
    void signalFirstStartable(long now) {
        Waiter first = firstStartable(now);
        if (first != null) {
            first.signalled = true;
            first.turn.signal();
        }
    }

    /** Wakes every waiter to look again (a pause or a test clock changed what they wait for). */
    void signalEveryone() {
        for (Waiter w : waiters) {
            w.signalled = true;
            w.turn.signal();
        }
    }

    /** A request waiting in a gate (identity matters: two waiters for the same model are two). */
    static final class Waiter {
        final String model;
        final Limits limits;
        /** This waiter's own condition: a release wakes only the waiter that may start. */
        final Condition turn;
        /** Set (under the lock) by whoever wakes this waiter to look at the queue again. */
        boolean signalled;

        Waiter(String model, Limits limits, Condition turn) {
            this.model = model;
            this.limits = limits;
            this.turn = turn;
        }
    }
}
