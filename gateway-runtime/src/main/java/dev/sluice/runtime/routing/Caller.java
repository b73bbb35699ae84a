package dev.sluice.runtime.routing;

import java.util.Set;

/**
 * Who sent a request, as far as routing cares.
 *
 * @param keyId the gateway key id ({@code admin} for the admin key)
 * @param admin whether the key may use the admin API
 * @param allowedConnections connection ids the key may use; empty = all
 * @param client whether the client is still there to read the answer (a waiting request gives up when it is not)
 * @param quotaShare the request is a quota-share combo's (QC-3): a connection's concurrency cap
 *        serializes it, but fails open instead of refusing it
 */
public record Caller(String keyId, boolean admin, Set<String> allowedConnections, ClientLiveness client, boolean quotaShare) {

    /** Copies the set. */
    public Caller {
        allowedConnections = Set.copyOf(allowedConnections);
        client = client == null ? ClientLiveness.ALWAYS : client;
    }

    /**
     * A caller whose client may be watched.
     *
     * @param keyId the gateway key id
     * @param admin whether the key may use the admin API
     * @param allowedConnections connection ids the key may use; empty = all
     * @param client whether the client is still there
     */
    public Caller(String keyId, boolean admin, Set<String> allowedConnections, ClientLiveness client) {
        this(keyId, admin, allowedConnections, client, false);
    }

    /**
     * The same caller, dispatching for a quota-share combo (QC-3).
     *
     * @return the caller
     */
    public Caller forQuotaShare() {
        return new Caller(keyId, admin, allowedConnections, client, true);
    }

    /**
     * A caller whose client is not watched.
     *
     * @param keyId the gateway key id
     * @param admin whether the key may use the admin API
     * @param allowedConnections connection ids the key may use; empty = all
     */
    public Caller(String keyId, boolean admin, Set<String> allowedConnections) {
        this(keyId, admin, allowedConnections, ClientLiveness.ALWAYS);
    }

    /**
     * The same caller, narrowed to one connection.
     *
     * @param connectionId the connection
     * @return the narrowed caller
     */
    public Caller pinnedTo(String connectionId) {
        return new Caller(keyId, admin, Set.of(connectionId), client, quotaShare);
    }

    /**
     * Whether this caller may use a connection.
     *
     * @param connectionId the connection id
     * @return true when allowed
     */
    public boolean mayUse(String connectionId) {
        return allowedConnections.isEmpty() || allowedConnections.contains(connectionId);
    }
}
