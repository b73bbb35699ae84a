package dev.sluice.runtime.resilience;

/**
 * What holds one request's model back on a connection, read once per request (NF-3) by the
 * mechanism that locks models and handed to the hold checks of the request's walk.
 */
public interface ModelHolds {

    /** Nothing of the model is held anywhere. */
    ModelHolds NONE = (check) -> false;

    /**
     * Whether the model is held back on the connection of {@code check} at its time; when it is,
     * the hold is written to {@code check}.
     *
     * @param check the candidate and the answer
     * @return true when held back
     */
    boolean holds(HoldCheck check);
}
