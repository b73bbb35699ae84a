package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.InstantSource;
import java.util.Optional;

/** {@link SettingsStore} on SQLite. */
public final class SqliteSettingsStore implements SettingsStore {

    private final Database db;
    private final InstantSource clock;

    /**
     * Creates the store.
     *
     * @param db the database
     * @param clock the clock
     */
    public SqliteSettingsStore(Database db, InstantSource clock) {
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
        db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO settings(key, value, updated_at) VALUES (?,?,?)"
                    + " ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at")) {
                ps.setString(1, key);
                ps.setString(2, json);
                ps.setLong(3, clock.millis());
                ps.executeUpdate();
            }
            return null;
        });
    }
}
