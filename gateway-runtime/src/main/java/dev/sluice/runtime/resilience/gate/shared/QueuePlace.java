package dev.sluice.runtime.resilience.gate.shared;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.WaitClaim;

/**
 * One request's place in its connection's queue as every instance counts it (NF-6, RQ-5): taken
 * from {@link SharedWaiters} the first time the request would wait — in its gate's queue, for a
 * shared permit ({@link SharedTurn}) or for a start slot ({@link SharedSlots}) — and given up when
 * the request's entry returns, whether it started or left. A request that starts at once, a queue
 * without a depth or instances that share nothing never ask the store. Used by the request's own
 * thread only.
 */
final class QueuePlace implements WaitClaim {

    private final SharedWaiters shared;
    private final String connectionId;
    private final int depth;
    private SharedWaiters.Place place;

    QueuePlace(SharedWaiters shared, String connectionId, Limits limits) {
        this.shared = shared;
        this.connectionId = connectionId;
        this.depth = limits.maxQueueDepth();
    }

    /** Whether {@link #claim()} would ask the store: depth bounded, places shared, none held yet. */
    @Override
    public boolean pending() {
        return place == null && depth > 0 && shared.shared();
    }

    /**
     * Takes the request's place before it waits; a no-op once held or when nothing is shared.
     *
     * @return false when the shared queue is full (nothing held): the request is refused
     */
    @Override
    public boolean claim() {
        if (!pending()) {
            return true;
        }
        SharedWaiters.Place got = shared.tryJoin(connectionId, depth);
        if (got == null) {
            return false;
        }
        place = got;
        return true;
    }

    /** Gives the place up (the request started or left); harmless when none is held. */
    @Override
    public void giveUp() {
        SharedWaiters.Place p = place;
        if (p != null) {
            place = null;
            p.leave();
        }
    }
}
