package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** {@link UsageStore} on SQLite or PostgreSQL. */
public final class JdbcUsageStore implements UsageStore {

    private final Database db;

    /**
     * Creates the store.
     *
     * @param db the database
     */
    public JdbcUsageStore(Database db) {
        this.db = db;
    }

    @Override
    public void append(List<UsageRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO usage (ts, request_id, key_id, api, provider, connection_id, model,"
                    + " prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status, latency_ms, attempts)"
                    + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
                for (UsageRow r : rows) {
                    ps.setLong(1, r.timestamp());
                    ps.setString(2, r.requestId());
                    ps.setString(3, r.keyId());
                    ps.setString(4, r.api());
                    ps.setString(5, r.provider());
                    ps.setString(6, r.connectionId());
                    ps.setString(7, r.model());
                    setLong(ps, 8, r.promptTokens());
                    setLong(ps, 9, r.completionTokens());
                    setLong(ps, 10, r.cachedTokens());
                    setLong(ps, 11, r.reasoningTokens());
                    ps.setInt(12, r.status());
                    ps.setLong(13, r.latencyMs());
                    ps.setInt(14, r.attempts());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    private static void setLong(PreparedStatement ps, int i, Long v) throws java.sql.SQLException {
        if (v == null) {
            ps.setNull(i, Types.INTEGER);
        } else {
            ps.setLong(i, v);
        }
    }

    @Override
    public int prune(long olderThan, int maxRows) {
        return db.inTransaction(c -> {
            int deleted;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM usage WHERE ts < ?")) {
                ps.setLong(1, olderThan);
                deleted = ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM usage WHERE id <= (SELECT COALESCE(MAX(id), 0) FROM usage) - ?")) {
                ps.setInt(1, maxRows);
                deleted += ps.executeUpdate();
            }
            return deleted;
        });
    }

    @Override
    public List<Sums> totals(long from, long to, GroupBy groupBy) {
        // the group expression comes from the enum, never from the request
        String sql = "SELECT " + groupBy.sql(db.dialect()) + " AS grp, provider, model, COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END),"
                + " COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cached_tokens), 0),"
                + " COALESCE(SUM(reasoning_tokens), 0), SUM(latency_ms), SUM(attempts)"
                + " FROM usage WHERE ts >= ? AND ts < ? GROUP BY grp, provider, model ORDER BY grp, provider, model";
        return db.withConnection(c -> {
            List<Sums> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, from);
                ps.setLong(2, to);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Sums(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5), rs.getLong(6),
                                rs.getLong(7), rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getLong(11)));
                    }
                }
            }
            return out;
        });
    }
}
