package dev.sluice.runtime.resilience.cooldown;

/**
 * Who hears a connection's cooldown transitions, and may veto the start of one, while
 * {@link ConnectionCooldowns} holds the connection's critical section: each call is atomic with the
 * durable write it concerns. The mechanism does not know who listens ({@link #NONE}: nobody; in
 * shared mode, NF-6, the decorator that announces to the other instances). Calls come on request
 * threads and on the admin API's; a listener answers quickly and never calls back into the
 * mechanism.
 */
public interface CooldownListener {

    /** Hears nothing; vetoes nothing. */
    CooldownListener NONE = new CooldownListener() {
    };

    /**
     * A failure is about to start a cooldown on a connection that is not cooling (CC-3: the burst's
     * one backoff step). Asked before anything is written.
     *
     * @param connectionId the connection
     * @param cooldownMs the cooldown about to start, ms
     * @return true to start it; false when the burst already took its step elsewhere, so that this
     *     failure is absorbed and nothing is written
     */
    default boolean mayStart(String connectionId, long cooldownMs) {
        return true;
    }

    /**
     * The connection's state was just written cooling for {@code remainingMs} more (a cooldown
     * started or lengthened, or a failure recorded on a cooling connection).
     *
     * @param connectionId the connection
     * @param remainingMs how long from now, ms (&gt; 0)
     */
    default void cooling(String connectionId, long remainingMs) {
    }

    /**
     * The connection's state was just written no longer cooling, while a cooldown was in force (a
     * success, an operator's clear or a terminal status ended it early).
     *
     * @param connectionId the connection
     */
    default void ended(String connectionId) {
    }
}
