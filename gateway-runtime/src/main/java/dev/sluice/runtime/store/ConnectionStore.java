package dev.sluice.runtime.store;

import java.util.List;
import java.util.Optional;

/**
 * Provider connections. Reads come from an in-memory snapshot refreshed on every write, so the
 * request path never touches the database.
 */
public interface ConnectionStore {

    /**
     * Every connection, in creation order.
     *
     * @return an immutable snapshot
     */
    List<Connection> list();

    /**
     * One connection.
     *
     * @param id the id
     * @return the connection, or empty
     */
    Optional<Connection> find(String id);

    /**
     * Stores a new connection, durably, before returning.
     *
     * @param fields the fields
     * @return the stored connection with its id
     */
    Connection create(NewConnection fields);

    /**
     * Replaces the operator-editable fields of a connection; the resilience state is kept.
     *
     * @param id the id
     * @param fields the new fields
     * @param rateLimitProtection the protection flag to store (RQ-9: only its own write path changes it)
     * @return the updated connection, or empty when it does not exist
     */
    Optional<Connection> update(String id, NewConnection fields, boolean rateLimitProtection);

    /**
     * Replaces the resilience state of a connection.
     *
     * @param id the id
     * @param state the state
     * @return the updated connection, or empty when it does not exist
     */
    Optional<Connection> updateState(String id, ConnectionState state);

    /**
     * A connection as the database holds it now, read past this instance's snapshot (which another
     * instance's write reaches only when the change feed delivers it): for decisions that must not
     * act on a stale copy, such as whether another instance already renewed an OAuth token. Not for
     * the request path.
     *
     * @param id the id
     * @return the connection, or empty when it does not exist
     */
    default Optional<Connection> reread(String id) {
        return find(id);
    }

    /**
     * Replaces the OAuth tokens of a connection (after a refresh), keeping everything else.
     *
     * @param id the id
     * @param tokens the new tokens
     * @return the updated connection, or empty when it does not exist
     */
    Optional<Connection> updateOAuth(String id, OAuthTokens tokens);

    /**
     * Sets a connection's explicit rate-limit protection (RQ-8), keeping everything else; the only
     * write path of the flag (RQ-9, {@code POST /api/rate-limits}).
     *
     * @param id the id
     * @param enabled the flag
     * @return the updated connection, or empty when it does not exist
     */
    Optional<Connection> updateRateLimitProtection(String id, boolean enabled);

    /**
     * Deletes a connection.
     *
     * @param id the id
     * @return true when it existed
     */
    boolean delete(String id);

    /**
     * Sets one member of a connection's provider-specific data, keeping the others and everything
     * else (issue 36: what a plugin learned about the connection, such as its Code Assist project).
     *
     * @param id the id
     * @param key the member
     * @param value its text value
     * @return the updated connection, or empty when it does not exist or this store cannot write
     */
    default Optional<Connection> putProviderSetting(String id, String key, String value) {
        return Optional.empty();
    }
}
