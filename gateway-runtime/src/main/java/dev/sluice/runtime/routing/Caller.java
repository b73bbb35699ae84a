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
 * @param affinity the request's session and exclusive lease (SPEC §10), or {@link Affinity#NONE}
 * @param models the model names the key may ask for (issue 33), or {@link AllowedModels#ALL}
 */
public record Caller(String keyId, boolean admin, Set<String> allowedConnections, ClientLiveness client, boolean quotaShare,
        Affinity affinity, AllowedModels models) {

    /** Copies the set. */
    public Caller {
        allowedConnections = Set.copyOf(allowedConnections);
        client = client == null ? ClientLiveness.ALWAYS : client;
        affinity = affinity == null ? Affinity.NONE : affinity;
        models = models == null ? AllowedModels.ALL : models;
    }

    /**
     * The same caller, limited to some models.
     *
     * @param m the model names the key may ask for
     * @return the caller
     */
    public Caller withModels(AllowedModels m) {
        return new Caller(keyId, admin, allowedConnections, client, quotaShare, affinity, m);
    }

    /**
     * What ties a request to a connection beyond its key (SPEC §10): its session, pinned to the
     * connection that served it last (SA-1), and the exclusive lease it claims (SL-3).
     *
     * @param sessionKey the session key's hash, or null when the request names no session (or
     *     affinity is off)
     * @param leaseOwnerHash SHA-256 of the lease owner token the request carries, or null
     * @param leaseGeneration the lease generation it claims (0 when it claims none)
     */
    public record Affinity(String sessionKey, String leaseOwnerHash, long leaseGeneration) {
        /** Neither a session nor a lease. */
        public static final Affinity NONE = new Affinity(null, null, 0);

        /** @return whether the request claims an exclusive lease (a managed request) */
        public boolean managed() {
            return leaseOwnerHash != null;
        }
    }

    /**
     * The same caller with a session and a lease claim.
     *
     * @param a the affinity
     * @return the caller
     */
    public Caller withAffinity(Affinity a) {
        return new Caller(keyId, admin, allowedConnections, client, quotaShare, a, models);
    }

    /**
     * A key's caller as it arrives: not for a quota-share combo, no session or lease claim, every
     * model allowed (the {@code with...} / {@code for...} methods narrow it).
     *
     * @param keyId the gateway key id
     * @param admin whether the key may use the admin API
     * @param allowedConnections connection ids the key may use; empty = all
     * @param client whether the client is still there ({@link ClientLiveness#ALWAYS}: not watched)
     * @return the caller
     */
    public static Caller of(String keyId, boolean admin, Set<String> allowedConnections, ClientLiveness client) {
        return new Caller(keyId, admin, allowedConnections, client, false, Affinity.NONE, AllowedModels.ALL);
    }

    /**
     * The same caller, dispatching for a quota-share combo (QC-3).
     *
     * @return the caller
     */
    public Caller forQuotaShare() {
        return new Caller(keyId, admin, allowedConnections, client, true, affinity, models);
    }

    /**
     * The same caller, narrowed to one connection.
     *
     * @param connectionId the connection
     * @return the narrowed caller
     */
    public Caller pinnedTo(String connectionId) {
        return new Caller(keyId, admin, Set.of(connectionId), client, quotaShare, affinity, models);
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
