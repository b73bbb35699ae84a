package dev.sluice.runtime.routing;

/**
 * What the pipeline asks of session affinity and exclusive leases (SPEC §10). The routing
 * package defines it; the session package implements it (no cycle), and {@link #NONE} stands in
 * where neither exists (tests, benchmarks).
 */
public interface SessionRouting {

    /** No affinity, no leases. */
    SessionRouting NONE = new SessionRouting() {
    };

    /**
     * The connection a session is pinned to for a provider (SA-1), or null.
     *
     * @param sessionKey the session key's hash
     * @param provider the provider id (combos pin per target provider)
     * @return the connection id, or null
     */
    default String pinned(String sessionKey, String provider) {
        return null;
    }

    /**
     * A connection served a request: the session (when there is one) is pinned to it, or its pin
     * moves to it (SA-2); the connection's last use is noted (new sessions go to the least
     * recently used connection).
     *
     * @param sessionKey the session key's hash, or null
     * @param provider the provider id
     * @param connectionId the connection
     */
    default void served(String sessionKey, String provider, String connectionId) {
    }

    /**
     * A fallback verdict on a connection: its pins are evicted (SA-1).
     *
     * @param connectionId the connection
     */
    default void failedOver(String connectionId) {
    }

    /**
     * When a connection last served a request (epoch ms; 0 = not since start-up).
     *
     * @param connectionId the connection
     * @return the time
     */
    default long lastUsed(String connectionId) {
        return 0;
    }

    /**
     * Whether a connection is held by another owner's active exclusive lease (SL-3): it serves
     * only that owner's managed requests.
     *
     * @param connectionId the connection
     * @param ownerHash the request's lease owner hash, or null for unmanaged traffic
     * @return true when someone else holds it
     */
    default boolean leasedByOther(String connectionId, String ownerHash) {
        return false;
    }

    /**
     * The final dispatch fence of a managed request (SL-3): the owner's active lease has this
     * generation, was acquired with this key, and holds this connection.
     *
     * @param affinity the request's claim
     * @param keyId the authenticated key id
     * @param connectionId the connection about to be called
     * @return true when the request may be sent
     */
    default boolean fenceHolds(Caller.Affinity affinity, String keyId, String connectionId) {
        return true;
    }
}
