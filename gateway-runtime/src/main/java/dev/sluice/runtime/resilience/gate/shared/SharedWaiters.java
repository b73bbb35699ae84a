package dev.sluice.runtime.resilience.gate.shared;

/**
 * The queue places several instances share (SPEC NF-6, RQ-5 across instances): a request that
 * would wait on a connection whose queue has a {@code maxQueueDepth} — in its instance's queue, or
 * holding its local turn while it waits for a shared permit or start slot — takes a place here
 * first, so that the depth holds over every instance together. The default, {@link #NONE}, shares
 * nothing: each instance's own queue is the only one counted, as on a single instance.
 *
 * <p>Asked only for a request that waits on a bounded queue, never for one that starts at once nor
 * when the depth is unlimited. An implementation bounds every call; when its store cannot be
 * reached it answers {@link Place#LOCAL} (fail open to the instance's own depth) rather than making
 * requests wait.
 */
public interface SharedWaiters {

    /** Shares nothing: every request holds {@link Place#LOCAL}. */
    SharedWaiters NONE = (connectionId, maxQueueDepth) -> Place.LOCAL;

    /** A place held in the shared queue; {@link #leave()} gives it up (idempotent). */
    @FunctionalInterface
    interface Place {

        /** Nothing shared is held: the instance's own queue alone bounded the request. */
        Place LOCAL = () -> { };

        /** Leaves the shared queue; leaving twice is harmless. */
        void leave();
    }

    /**
     * Takes a place in the connection's shared queue unless it already holds {@code maxQueueDepth}.
     *
     * @param connectionId the connection
     * @param maxQueueDepth the queue's bound, at least 1
     * @return the place; {@link Place#LOCAL} when the store is unreachable (fail open); null when the queue is full
     */
    Place tryJoin(String connectionId, int maxQueueDepth);

    /** @return true when queue places are shared with other instances */
    default boolean shared() {
        return this != NONE;
    }
}
