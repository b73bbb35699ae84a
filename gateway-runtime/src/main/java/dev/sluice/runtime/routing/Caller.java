package dev.sluice.runtime.routing;

import java.util.Set;

/**
 * Who sent a request, as far as routing cares.
 *
 * @param keyId the gateway key id ({@code admin} for the admin key)
 * @param admin whether the key may use the admin API
 * @param allowedConnections connection ids the key may use; empty = all
 */
public record Caller(String keyId, boolean admin, Set<String> allowedConnections) {

    /** Copies the set. */
    public Caller {
        allowedConnections = Set.copyOf(allowedConnections);
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
