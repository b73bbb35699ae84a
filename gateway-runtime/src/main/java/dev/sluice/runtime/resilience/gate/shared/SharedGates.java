package dev.sluice.runtime.resilience.gate.shared;

import java.util.Objects;

/**
 * What the gates of one instance share with the other instances (NF-6): the permits of
 * {@code maxConcurrent} and model caps, the start slots of paced connections, and the places in
 * the request queue. {@link #NONE} shares nothing (one instance, and every unit test that does not
 * say otherwise).
 *
 * @param permits the shared permits
 * @param pacing the shared start slots
 * @param waiting the shared queue places
 */
public record SharedGates(SharedPermits permits, SharedPacing pacing, SharedWaiters waiting) {

    /** Nothing shared. */
    public static final SharedGates NONE = new SharedGates(SharedPermits.NONE, SharedPacing.NONE, SharedWaiters.NONE);

    /** Checks the parts. */
    public SharedGates {
        Objects.requireNonNull(permits, "permits is null");
        Objects.requireNonNull(pacing, "pacing is null");
        Objects.requireNonNull(waiting, "waiting is null");
    }

    /**
     * A copy with other permits.
     *
     * @param value the permits
     * @return the copy
     */
    public SharedGates withPermits(SharedPermits value) {
        return new SharedGates(value, pacing, waiting);
    }

    /**
     * A copy with other start slots.
     *
     * @param value the start slots
     * @return the copy
     */
    public SharedGates withPacing(SharedPacing value) {
        return new SharedGates(permits, value, waiting);
    }

    /**
     * A copy with other queue places.
     *
     * @param value the queue places
     * @return the copy
     */
    public SharedGates withWaiting(SharedWaiters value) {
        return new SharedGates(permits, pacing, value);
    }
}
