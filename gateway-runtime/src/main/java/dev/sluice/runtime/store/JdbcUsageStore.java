package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@link UsageStore} on SQLite or PostgreSQL. A bucket's row is upserted by adding
 * ({@code ON CONFLICT … DO UPDATE SET n = usage.n + excluded.n}), atomic per row in both
 * databases, so instances sharing a PostgreSQL database never overwrite each other's counts. An
 * unknown key, provider, connection or model is stored as {@code ''} (the primary key cannot hold
 * nulls) and read back as null.
 */
public final class JdbcUsageStore implements UsageStore {

    private static final String COUNTS = "requests, errors, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, latency_ms, attempts";
    private static final String UPSERT = "INSERT INTO usage (ts, key_id, api, provider, connection_id, model, " + COUNTS + ")"
            + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            + " ON CONFLICT (ts, key_id, api, provider, connection_id, model) DO UPDATE SET"
            + " requests = usage.requests + excluded.requests, errors = usage.errors + excluded.errors,"
            + " prompt_tokens = usage.prompt_tokens + excluded.prompt_tokens,"
            + " completion_tokens = usage.completion_tokens + excluded.completion_tokens,"
            + " cached_tokens = usage.cached_tokens + excluded.cached_tokens,"
            + " reasoning_tokens = usage.reasoning_tokens + excluded.reasoning_tokens,"
            + " latency_ms = usage.latency_ms + excluded.latency_ms, attempts = usage.attempts + excluded.attempts";
    /** Two instances upserting the same buckets in one order cannot deadlock each other. */
    private static final Comparator<UsageAggregate> BUCKET_ORDER = Comparator.comparingLong(UsageAggregate::minute)
            .thenComparing(a -> blank(a.keyId())).thenComparing(UsageAggregate::api).thenComparing(a -> blank(a.provider()))
            .thenComparing(a -> blank(a.connectionId())).thenComparing(a -> blank(a.model()));

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
    public void add(List<UsageAggregate> aggregates) {
        if (aggregates.isEmpty()) {
            return;
        }
        List<UsageAggregate> sorted = new ArrayList<>(aggregates);
        sorted.sort(BUCKET_ORDER);
        db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
                for (UsageAggregate a : sorted) {
                    ps.setLong(1, a.minute());
                    ps.setString(2, blank(a.keyId()));
                    ps.setString(3, a.api());
                    ps.setString(4, blank(a.provider()));
                    ps.setString(5, blank(a.connectionId()));
                    ps.setString(6, blank(a.model()));
                    ps.setLong(7, a.requests());
                    ps.setLong(8, a.errors());
                    ps.setLong(9, a.promptTokens());
                    ps.setLong(10, a.completionTokens());
                    ps.setLong(11, a.cachedTokens());
                    ps.setLong(12, a.reasoningTokens());
                    ps.setLong(13, a.latencyMs());
                    ps.setLong(14, a.attempts());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return null;
        });
    }

    private static String blank(String v) {
        return v == null ? "" : v;
    }

    @Override
    public int prune(long olderThan, int maxRows) {
        return db.inTransaction(c -> {
            int deleted;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM usage WHERE ts < ?")) {
                ps.setLong(1, olderThan);
                deleted = ps.executeUpdate();
            }
            // whole minutes go: the rows older than the minute of the maxRows-th newest row (none when there are fewer rows)
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM usage WHERE ts < (SELECT ts FROM usage ORDER BY ts DESC LIMIT 1 OFFSET ?)")) {
                ps.setInt(1, maxRows);
                deleted += ps.executeUpdate();
            }
            return deleted;
        });
    }

    @Override
    public List<Sums> totals(long from, long to, GroupBy groupBy) {
        // the group expression comes from the enum, never from the request
        String sql = "SELECT " + groupBy.sql(db.dialect()) + " AS grp, NULLIF(provider, ''), NULLIF(model, ''), SUM(requests), SUM(errors),"
                + " SUM(prompt_tokens), SUM(completion_tokens), SUM(cached_tokens), SUM(reasoning_tokens), SUM(latency_ms), SUM(attempts)"
                + " FROM usage WHERE ts >= ? AND ts < ? GROUP BY grp, provider, model";
        return db.withConnection(c -> {
            List<Sums> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, from);
                ps.setLong(2, to);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(sums(rs));
                    }
                }
            }
            out.sort(Sums.ORDER);
            return out;
        });
    }

    private static Sums sums(ResultSet rs) throws SQLException {
        return new Sums(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7),
                rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getLong(11));
    }
}
