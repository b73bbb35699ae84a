package dev.sluice.runtime.resilience.gate.shared;

/**
 * The concurrency permits several instances share (SPEC NF-6, QC-1/QC-2 across instances): a
 * request that got its instance's local permit also takes one here before it may start, so that
 * {@code maxConcurrent} and model caps hold over every instance together. The default,
 * {@link #NONE}, shares nothing: the local gate is the only limit, as on a single instance.
 *
 * <p>An implementation bounds every call; when its store cannot be reached it answers
 * {@link Held#LOCAL} (fail open to the instance's own limit) rather than making requests wait.
 */
public interface SharedPermits {

    /** Shares nothing: every acquisition answers {@link Held#LOCAL}. */
    SharedPermits NONE = (connectionId, model, connectionCap, modelCap) -> Held.LOCAL;

    /**
     * A permit held in the shared store; {@link #release()} gives it back (idempotent).
     */
    @FunctionalInterface
    interface Held {

        /** Nothing shared is held: the local gate alone limited the request. */
        Held LOCAL = () -> { };

        /** Gives the permit back; releasing twice is harmless. */
        void release();
    }

    /**
     * Takes a permit on the connection (counted against {@code connectionCap}) and on its model
     * (against {@code modelCap}) in one atomic step, or nothing.
     *
     * @param connectionId the connection
     * @param model the upstream model
     * @param connectionCap the connection's cap, 0 = this permit does not count on the connection
     * @param modelCap the model's cap on the connection, 0 = none
     * @return the permit; {@link Held#LOCAL} when the store is unreachable (fail open); null when a cap is full
     */
    Held tryAcquire(String connectionId, String model, int connectionCap, int modelCap);

    /** @return true when permits are shared with other instances */
    default boolean shared() {
        return this != NONE;
    }
}
