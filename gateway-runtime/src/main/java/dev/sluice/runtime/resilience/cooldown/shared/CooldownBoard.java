package dev.sluice.runtime.resilience.cooldown.shared;

/**
 * Connection cooldowns as every instance must see them on its very next request (SPEC NF-6, §8).
 * The cooldown itself stays on the connection's durable state (CC-1), which other instances
 * re-read within about a second; the board announces it at once, so that between the write and
 * that re-read no other instance sends a request to the cooled account. The default,
 * {@link #NONE}, announces nothing (one instance: the connection snapshot is already current).
 * {@link SharedConnectionCooldowns} claims, announces and reads it; the local mechanism never sees it.
 *
 * <p>An implementation bounds every call; when its store cannot be reached, reads answer 0 and
 * writes are dropped: the durable state still arrives through the database.
 */
public interface CooldownBoard {

    /** Announces nothing; knows nothing. */
    CooldownBoard NONE = new CooldownBoard() {
        @Override
        public void cooled(String connectionId, long remainingMs) {
        }

        @Override
        public void cleared(String connectionId) {
        }

        @Override
        public long remainingMs(String connectionId) {
            return 0;
        }
    };

    /**
     * A connection now cools for {@code remainingMs}.
     *
     * @param connectionId the connection
     * @param remainingMs how long from now, ms (&gt; 0)
     */
    void cooled(String connectionId, long remainingMs);

    /**
     * A connection's cooldown ended early (a success or an operator's clear).
     *
     * @param connectionId the connection
     */
    void cleared(String connectionId);

    /**
     * How long a connection is announced to cool still.
     *
     * @param connectionId the connection
     * @return ms left, 0 when none is announced (or the board cannot be reached)
     */
    long remainingMs(String connectionId);

    /**
     * Claims the cooldown a failure is about to start, atomically over all instances (CC-3 across
     * instances): true when no instance announced one for the connection, and it is now announced
     * for {@code remainingMs}; false when another instance's cooldown is in force, so that this
     * failure belongs to the burst that already took its backoff step. Without a store (or when it
     * cannot be reached): true.
     *
     * @param connectionId the connection
     * @param remainingMs the cooldown about to start, ms
     * @return whether this instance may start it
     */
    default boolean claim(String connectionId, long remainingMs) {
        return true;
    }

    /** @return true when cooldowns are announced to other instances */
    default boolean shared() {
        return this != NONE;
    }
}
