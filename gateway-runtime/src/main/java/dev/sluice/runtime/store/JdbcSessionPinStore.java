package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * Session pins on SQLite, table {@code session_account_affinity} (SPEC SA-2): a session key's
 * hash and a provider → the connection the session is pinned to, so pins survive a restart.
 */
public final class SqliteSessionPinStore {

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
    public SqliteSessionPinStore(Database db) {
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
     * Writes a pin (new, moved or seen again).
     *
     * @param p the pin
     */
    public void save(PinRow p) {
        db.withConnection(c -> {
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
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement(connectionId == null ? "DELETE FROM session_account_affinity"
                    : "DELETE FROM session_account_affinity WHERE connection_id = ?")) {
                if (connectionId != null) {
                    ps.setString(1, connectionId);
                }
                return ps.executeUpdate();
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
        db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM session_account_affinity WHERE session_key = ? AND provider = ?")) {
                ps.setString(1, sessionKey);
                ps.setString(2, provider);
                return ps.executeUpdate();
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
