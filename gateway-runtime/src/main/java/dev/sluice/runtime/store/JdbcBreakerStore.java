package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link BreakerRowStore} on SQLite or PostgreSQL, table {@code domain_circuit_breakers} (SPEC DM-3, CB-7): one
 * row per breaker, keyed by {@code provider@host}. Rows are returned as stored; the breakers skip
 * one that no longer makes sense (an unknown state or class) when they restore.
 */
public final class JdbcBreakerStore implements BreakerRowStore {

    private final Database db;

    /**
     * Creates the store.
     *
     * @param db the database
     */
    public JdbcBreakerStore(Database db) {
        this.db = requireNonNull(db, "db is null");
    }

    @Override
    public List<BreakerRow> loadAll() {
        return db.withConnection(c -> {
            List<BreakerRow> out = new ArrayList<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT key, provider, host, provider_class, state, failure_count,"
                            + " open_cycles, opened_at, last_failure_at, last_failure_kind, consecutive_successes, updated_at"
                            + " FROM domain_circuit_breakers ORDER BY key")) {
                while (rs.next()) {
                    out.add(read(rs));
                }
            }
            return out;
        });
    }

    private static BreakerRow read(ResultSet rs) throws SQLException {
        return new BreakerRow(
                rs.getString("provider"),
                rs.getString("host"),
                rs.getString("provider_class"),
                rs.getString("state"),
                rs.getInt("failure_count"),
                rs.getInt("open_cycles"),
                nullableLong(rs, "opened_at"),
                nullableLong(rs, "last_failure_at"),
                rs.getString("last_failure_kind"),
                rs.getInt("consecutive_successes"),
                rs.getLong("updated_at"));
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    @Override
    public void save(BreakerRow s) {
        requireNonNull(s, "row is null");
        db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO domain_circuit_breakers(key, provider, host,"
                    + " provider_class, state, failure_count, open_cycles, opened_at, last_failure_at, last_failure_kind,"
                    + " consecutive_successes, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
                    + " ON CONFLICT(key) DO UPDATE SET provider_class=excluded.provider_class, state=excluded.state,"
                    + " failure_count=excluded.failure_count, open_cycles=excluded.open_cycles, opened_at=excluded.opened_at,"
                    + " last_failure_at=excluded.last_failure_at, last_failure_kind=excluded.last_failure_kind,"
                    + " consecutive_successes=excluded.consecutive_successes, updated_at=excluded.updated_at")) {
                ps.setString(1, s.key());
                ps.setString(2, s.provider());
                ps.setString(3, s.host());
                ps.setString(4, s.providerClass());
                ps.setString(5, s.state());
                ps.setInt(6, s.failureCount());
                ps.setInt(7, s.openCycles());
                setNullableLong(ps, 8, s.openedAt());
                setNullableLong(ps, 9, s.lastFailureAt());
                ps.setString(10, s.lastFailureKind());
                ps.setInt(11, s.consecutiveSuccesses());
                ps.setLong(12, s.updatedAt());
                ps.executeUpdate();
            }
            return null;
        });
    }

    private static void setNullableLong(PreparedStatement ps, int index, Long v) throws SQLException {
        if (v == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setLong(index, v);
        }
    }

    @Override
    public void delete(String provider, String host) {
        requireNonNull(provider, "provider is null");
        requireNonNull(host, "host is null");
        db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM domain_circuit_breakers WHERE key=?")) {
                ps.setString(1, BreakerRow.key(provider, host));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public void deleteAll() {
        db.withConnection(c -> {
            try (Statement s = c.createStatement()) {
                return s.executeUpdate("DELETE FROM domain_circuit_breakers");
            }
        });
    }
}
