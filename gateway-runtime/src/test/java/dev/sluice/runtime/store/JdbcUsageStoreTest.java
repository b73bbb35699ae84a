package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.UsageTotals.GroupBy;
import dev.sluice.runtime.store.UsageTotals.Sums;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code usage} table of minute aggregates on SQLite (SPEC DM-3, issue 26). */
class JdbcUsageStoreTest {

    static final long T0 = Instant.parse("2026-03-04T10:00:00Z").toEpochMilli();

    @TempDir
    Path dir;
    private Database db;
    private JdbcUsageStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcUsageStore(db);
    }

    @AfterEach
    void close() {
        db.close();
    }

    static UsageAggregate agg(long minute, String key, String provider, String model, long requests, long prompt) {
        return new UsageAggregate(minute, key, "chat_completions", provider, provider == null ? null : "c1", model, requests, 0, prompt,
                1, 0, 0, 10, requests);
    }

    private long rows() {
        return db.withConnection(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM usage")) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    @Test
    void twoWritersAddingToOneBucketLeaveTheSumOfBoth_DM3() {
        store.add(List.of(agg(T0, "k1", "openai", "gpt", 3, 30)));
        new JdbcUsageStore(db).add(List.of(agg(T0, "k1", "openai", "gpt", 2, 20), agg(T0 + 60_000, "k1", "openai", "gpt", 1, 1)));
        assertThat(rows()).isEqualTo(2);
        assertThat(store.totals(T0, T0 + 60_000, GroupBy.KEY)).containsExactly(new Sums("k1", "openai", "gpt", 5, 0, 50, 2, 0, 0, 20, 5));
    }

    @Test
    void unknownKeyProviderAndModelAreStoredBlankAndAnsweredAsNull_DM3() {
        store.add(List.of(agg(T0, null, null, null, 1, 0), agg(T0, "k1", "openai", "gpt", 1, 5)));
        assertThat(store.totals(0, Long.MAX_VALUE, GroupBy.MODEL)).extracting(Sums::group, Sums::provider, Sums::model)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(null, null, null), org.assertj.core.groups.Tuple.tuple("openai/gpt", "openai", "gpt"));
        assertThat(store.totals(0, Long.MAX_VALUE, GroupBy.KEY)).extracting(Sums::group).containsExactly(null, "k1");
        assertThat(store.totals(0, Long.MAX_VALUE, GroupBy.DAY)).extracting(Sums::group).containsExactly("2026-03-04", "2026-03-04");
    }

    @Test
    void pruningDropsMinutesPastTheRetentionThenTheOldestBeyondTheRowBound_DM3() {
        for (int m = 0; m < 10; m++) {
            store.add(List.of(agg(T0 + m * 60_000L, "k1", "openai", "gpt", 1, 1), agg(T0 + m * 60_000L, "k2", "openai", "gpt", 1, 1)));
        }
        assertThat(store.prune(T0 + 2 * 60_000L, 1_000)).isEqualTo(4);
        assertThat(rows()).isEqualTo(16);
        // whole minutes go: those older than the minute of the 6th newest row (minute 7), which stays whole
        assertThat(store.prune(0, 5)).isEqualTo(10);
        assertThat(rows()).isEqualTo(6);
        assertThat(store.prune(0, 100)).isZero();
    }

    @Test
    void theUpgradeTurnsPerRequestRowsIntoMinuteAggregatesWithTheSameTotals_DM3() {
        // a version-5 database: the per-request table, with rows
        db.withConnection(c -> {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE usage");
                s.execute("ALTER TABLE provider_connections DROP COLUMN discovered_models"); // migration 7 (issue 32) runs again
                // migration 8 (issue 33) runs again
                s.execute("ALTER TABLE api_keys DROP COLUMN allowed_models");
                s.execute("ALTER TABLE proxy_logs DROP COLUMN effect_kind");
                s.execute("ALTER TABLE proxy_logs DROP COLUMN effect_until");
                s.execute("ALTER TABLE proxy_logs DROP COLUMN effect_reason");
                s.execute("DELETE FROM schema_migrations WHERE version >= 5");
                for (String sql : Migrations.ALL.get(4).statements()) {
                    s.execute(sql);
                }
                s.execute("INSERT INTO schema_migrations(version, description, applied_at) VALUES (5, 'usage', 0)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO usage (ts, request_id, key_id, api, provider, connection_id, model,"
                    + " prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status, latency_ms, attempts)"
                    + " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
                insert(ps, T0 + 5_000, "r1", "k1", "openai", "c1", "gpt", 10L, 5L, 2L, null, 200, 30, 1);
                insert(ps, T0 + 40_000, "r2", "k1", "openai", "c1", "gpt", null, null, null, null, 500, 10, 2);
                insert(ps, T0 + 61_000, "r3", "k2", "openai", "c1", "gpt", 1L, 1L, null, 1L, 200, 5, 1);
                insert(ps, T0 + 62_000, "r4", null, null, null, null, null, null, null, null, 404, 1, 0);
                insert(ps, T0 + 86_400_000L, "r5", "k1", "anthropic", "c2", "claude", 100L, 50L, 0L, 0L, 200, 300, 1);
                ps.executeBatch();
            }
            return null;
        });
        db.close();
        db = Database.open(dir);
        store = new JdbcUsageStore(db);

        assertThat(db.schemaVersion()).isEqualTo(Migrations.latestVersion());
        assertThat(rows()).as("r1 and r2 share a minute and bucket").isEqualTo(4);
        assertThat(store.totals(0, Long.MAX_VALUE, GroupBy.KEY)).containsExactly(
                new Sums(null, null, null, 1, 1, 0, 0, 0, 0, 1, 0),
                new Sums("k1", "anthropic", "claude", 1, 0, 100, 50, 0, 0, 300, 1),
                new Sums("k1", "openai", "gpt", 2, 1, 10, 5, 2, 0, 40, 3),
                new Sums("k2", "openai", "gpt", 1, 0, 1, 1, 0, 1, 5, 1));
        assertThat(store.totals(0, Long.MAX_VALUE, GroupBy.DAY)).extracting(Sums::group, Sums::requests).containsExactly(
                org.assertj.core.groups.Tuple.tuple("2026-03-04", 1L), org.assertj.core.groups.Tuple.tuple("2026-03-04", 3L),
                org.assertj.core.groups.Tuple.tuple("2026-03-05", 1L));
        // the migrated rows take further counts
        store.add(List.of(new UsageAggregate(T0, "k1", "chat_completions", "openai", "c1", "gpt", 1, 0, 1, 0, 0, 0, 1, 1)));
        assertThat(rows()).isEqualTo(4);
    }

    private static void insert(PreparedStatement ps, long ts, String id, String key, String provider, String connection, String model,
            Long prompt, Long completion, Long cached, Long reasoning, int status, long latency, int attempts) throws java.sql.SQLException {
        ps.setLong(1, ts);
        ps.setString(2, id);
        ps.setString(3, key);
        ps.setString(4, "chat_completions");
        ps.setString(5, provider);
        ps.setString(6, connection);
        ps.setString(7, model);
        ps.setObject(8, prompt);
        ps.setObject(9, completion);
        ps.setObject(10, cached);
        ps.setObject(11, reasoning);
        ps.setInt(12, status);
        ps.setLong(13, latency);
        ps.setInt(14, attempts);
        ps.addBatch();
    }
}
