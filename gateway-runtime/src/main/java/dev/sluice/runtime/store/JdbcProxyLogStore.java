package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.List;

/** {@link ProxyLogStore} on SQLite or PostgreSQL. */
public final class JdbcProxyLogStore implements ProxyLogStore {

    private final Database db;

    /**
     * Creates the store.
     *
     * @param db the database
     */
    public JdbcProxyLogStore(Database db) {
        this.db = db;
    }

    @Override
    public void append(List<ProxyLogRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO proxy_logs (ts, request_id, provider, connection_id, model,"
                    + " status, latency_ms, error_type, egress_ip, effect_kind, effect_until, effect_reason)"
                    + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")) {
                for (ProxyLogRow r : rows) {
                    ps.setLong(1, r.timestamp());
                    ps.setString(2, r.requestId());
                    ps.setString(3, r.provider());
                    ps.setString(4, r.connectionId());
                    ps.setString(5, r.model());
                    ps.setInt(6, r.status());
                    ps.setLong(7, r.latencyMs());
                    ps.setString(8, r.errorType());
                    ps.setString(9, r.egressIp());
                    ProxyLogRow.Effect e = r.effect();
                    ps.setString(10, e == null ? null : e.kind());
                    if (e == null || e.untilMs() == null) {
                        ps.setNull(11, java.sql.Types.BIGINT);
                    } else {
                        ps.setLong(11, e.untilMs());
                    }
                    ps.setString(12, e == null ? null : e.reason());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    @Override
    public List<ProxyLogRow> recent(int limit) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM proxy_logs ORDER BY id DESC LIMIT ?")) {
                ps.setInt(1, limit);
                return rows(ps);
            }
        });
    }

    @Override
    public List<ProxyLogRow> failures(long from, long to, int limit) {
        // the ts index bounds the scan; failures are most of what is kept since successes are sampled
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM proxy_logs WHERE ts >= ? AND ts < ?"
                    + " AND (error_type IS NOT NULL OR status >= 400) ORDER BY ts DESC, id DESC LIMIT ?")) {
                ps.setLong(1, from);
                ps.setLong(2, to);
                ps.setInt(3, limit);
                return rows(ps);
            }
        });
    }

    private static final String COLUMNS = "ts, request_id, provider, connection_id, model, status, latency_ms, error_type, egress_ip,"
            + " effect_kind, effect_until, effect_reason";

    private static List<ProxyLogRow> rows(PreparedStatement ps) throws java.sql.SQLException {
        List<ProxyLogRow> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String kind = rs.getString(10);
                long until = rs.getLong(11);
                Long untilMs = rs.wasNull() ? null : until;
                rows.add(new ProxyLogRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getInt(6), rs.getLong(7), rs.getString(8), rs.getString(9),
                        kind == null ? null : new ProxyLogRow.Effect(kind, untilMs, rs.getString(12))));
            }
        }
        return rows;
    }

    @Override
    public Map<String, String> lastEgressIps(Collection<String> connectionIds, long since) {
        if (connectionIds.isEmpty()) {
            return Map.of();
        }
        return db.withConnection(c -> {
            Map<String, String> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT egress_ip FROM proxy_logs WHERE connection_id = ? AND ts >= ?"
                    + " AND egress_ip IS NOT NULL ORDER BY ts DESC, id DESC LIMIT 1")) {
                for (String id : connectionIds) {
                    ps.setString(1, id);
                    ps.setLong(2, since);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            out.put(id, rs.getString(1));
                        }
                    }
                }
            }
            return out;
        });
    }

    @Override
    public int prune(long olderThan, int maxRows) {
        return db.inTransaction(c -> {
            int deleted;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM proxy_logs WHERE ts < ?")) {
                ps.setLong(1, olderThan);
                deleted = ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM proxy_logs WHERE id <= (SELECT COALESCE(MAX(id), 0) FROM proxy_logs) - ?")) {
                ps.setInt(1, maxRows);
                deleted += ps.executeUpdate();
            }
            return deleted;
        });
    }
}
