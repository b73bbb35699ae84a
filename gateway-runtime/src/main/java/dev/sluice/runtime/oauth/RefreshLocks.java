package dev.sluice.runtime.oauth;

/**
 * The cluster-wide lock around one connection's token refresh (issue 36, shared mode): one
 * instance renews, the others wait for its result in the store. Without Redis, or while Redis
 * cannot be reached, every claim answers {@link Claim#LOCAL}: the instance refreshes on its own
 * (its in-process single flight still holds), because a request must not wait on a dead
 * dependency.
 */
public interface RefreshLocks {

    /** No cluster: every refresh is this instance's. */
    RefreshLocks NONE = (connectionId, ttlMs) -> Claim.LOCAL;

    /**
     * Tries to take the lock of a connection's refresh.
     *
     * @param connectionId the connection
     * @param ttlMs how long the lock holds at most (a holder that dies frees it then)
     * @return the claim; close it when the refresh is over
     */
    Claim claim(String connectionId, long ttlMs);

    /** What a claim got. */
    enum Outcome {
        /** This instance holds the cluster lock: it refreshes. */
        HELD,
        /** Another instance holds it: wait for its result in the store. */
        ELSEWHERE,
        /** No cluster lock to be had (none configured, or Redis down): refresh here. */
        LOCAL
    }

    /** A claim; closing it frees a held lock (and nothing otherwise). */
    interface Claim extends AutoCloseable {

        /** The claim of an instance without a cluster lock. */
        Claim LOCAL = () -> Outcome.LOCAL;
        /** The claim that found the lock taken. */
        Claim ELSEWHERE = () -> Outcome.ELSEWHERE;

        /**
         * What the claim got.
         *
         * @return the outcome
         */
        Outcome outcome();

        @Override
        default void close() {
        }
    }
}
