package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * Session pins on SQLite or PostgreSQL, table {@code session_account_affinity} (SPEC SA-2): a
 * session key's hash and a provider → the connection the session is pinned to, so pins survive a
 * restart. Writes are announced: {@value #TOPIC}{@code :<key> <provider>} for one pin,
 * {@value #TOPIC_CONNECTION}{@code :<connection>} (or without id: all) for removals.
 */
public final class JdbcSessionPinStore {

    /** The change notification of one pin. */
    public static final String TOPIC = "pin";
    /** The change notification of the pins of a connection (all pins without an id). */
    public static final String TOPIC_CONNECTION = "pins";

    /**
     * One pin as stored.
     *
     * @param sessionKey the session key's hash
     * @param provider the provider id
     * @param connectionId the connection
     * @param createdAt epoch ms
     * @param lastSeenAt epoch ms of the last request of the session (as last written)
     */
    public record PinRow(String sessionKey, String provider, String connectionId, long createdAt, long lastSeenAt) {
    }

    private final Database db;

    /**
     * Creates the store.
     *
     * @param db the database
     */
    public JdbcSessionPinStore(Database db) {
        this.db = requireNonNull(db, "db is null");
    }

    /** @return every pin */
    public List<PinRow> loadAll() {
        return db.withConnection(c -> {
            List<PinRow> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT session_key, provider, connection_id, created_at, last_seen_at"
                    + " FROM session_account_affinity"); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new PinRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5)));
                }
            }
            return out;
        });
    }

    /**
     * One pin as stored.
     *
     * @param sessionKey the session key's hash
     * @param provider the provider
     * @return the pin, or empty
     */
    public java.util.Optional<PinRow> find(String sessionKey, String provider) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT session_key, provider, connection_id, created_at, last_seen_at"
                    + " FROM session_account_affinity WHERE session_key = ? AND provider = ?")) {
                ps.setString(1, sessionKey);
                ps.setString(2, provider);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? java.util.Optional.of(new PinRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                            rs.getLong(5))) : java.util.Optional.<PinRow>empty();
                }
            }
        });
    }

    /**
     * The id of one pin in a change notification.
     *
     * @param sessionKey the session key's hash
     * @param provider the provider
     * @return {@code <key> <provider>}
     */
    public static String pinId(String sessionKey, String provider) {
        return sessionKey + ' ' + provider;
    }

    /**
     * Writes a pin (new, moved or seen again).
     *
     * @param p the pin
     */
    public void save(PinRow p) {
        db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO session_account_affinity(session_key, provider, connection_id,"
                    + " created_at, last_seen_at) VALUES (?,?,?,?,?) ON CONFLICT(session_key, provider) DO UPDATE SET"
                    + " connection_id = excluded.connection_id, last_seen_at = excluded.last_seen_at")) {
                ps.setString(1, p.sessionKey());
                ps.setString(2, p.provider());
                ps.setString(3, p.connectionId());
                ps.setLong(4, p.createdAt());
                ps.setLong(5, p.lastSeenAt());
                ps.executeUpdate();
            }
            db.announce(c, TOPIC + ":" + pinId(p.sessionKey(), p.provider()));
            return null;
        });
    }

    /**
     * Deletes pins: those of one connection, or all when the connection is null.
     *
     * @param connectionId the connection, or null
     * @return how many were deleted
     */
    public int deleteByConnection(String connectionId) {
        return db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement(connectionId == null ? "DELETE FROM session_account_affinity"
                    : "DELETE FROM session_account_affinity WHERE connection_id = ?")) {
                if (connectionId != null) {
                    ps.setString(1, connectionId);
                }
                int n = ps.executeUpdate();
                db.announce(c, connectionId == null ? TOPIC_CONNECTION : TOPIC_CONNECTION + ":" + connectionId);
                return n;
            }
        });
    }

    /**
     * Deletes one pin.
     *
     * @param sessionKey the session key's hash
     * @param provider the provider
     */
    public void delete(String sessionKey, String provider) {
        db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM session_account_affinity WHERE session_key = ? AND provider = ?")) {
                ps.setString(1, sessionKey);
                ps.setString(2, provider);
                int n = ps.executeUpdate();
                db.announce(c, TOPIC + ":" + pinId(sessionKey, provider));
                return n;
            }
        });
    }

    /**
     * Deletes the pins not seen since a time.
     *
     * @param cutoff epoch ms
     * @return how many were deleted
     */
    public int deleteSeenBefore(long cutoff) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM session_account_affinity WHERE last_seen_at < ?")) {
                ps.setLong(1, cutoff);
                return ps.executeUpdate();
            }
        });
    }
}
