package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.InstantSource;
import java.util.Optional;

/**
 * {@link SettingsStore} on SQLite or PostgreSQL; a write is announced as {@value #TOPIC}{@code :key},
 * for the services that keep the setting in memory.
 */
public final class JdbcSettingsStore implements SettingsStore {

    /** What the change notifications of this store name. */
    public static final String TOPIC = "settings";

    private final Database db;
    private final InstantSource clock;

    /**
     * Creates the store.
     *
     * @param db the database
     * @param clock the clock
     */
    public JdbcSettingsStore(Database db, InstantSource clock) {
        this.db = db;
        this.clock = clock;
    }

    @Override
    public Optional<String> get(String key) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT value FROM settings WHERE key=?")) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public void put(String key, String json) {
        db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO settings(key, value, updated_at) VALUES (?,?,?)"
                    + " ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at")) {
                ps.setString(1, key);
                ps.setString(2, json);
                ps.setLong(3, clock.millis());
                ps.executeUpdate();
            }
            db.announce(c, TOPIC + ":" + key);
            return null;
        });
    }
}
