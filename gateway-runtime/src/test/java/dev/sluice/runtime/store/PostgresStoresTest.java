package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;

import dev.sluice.runtime.security.SecretBox;
import dev.sluice.testkit.TestClock;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stores on a real PostgreSQL (NF-6): the PostgreSQL migrations, every store's SQL in that
 * dialect, and the change notifications that carry a write on one instance to the snapshots of
 * another. Two {@link Database}s on one database play two instances.
 */
class PostgresStoresTest {

    private final TestClock clock = TestClock.create();
    private final SecretBox box = SecretBox.fromBase64(JdbcConnectionStoreTest.KEY);
    private final List<AutoCloseable> open = new ArrayList<>();
    private DatabaseSettings target;

    @BeforeEach
    void database() {
        target = SharedPostgres.freshDatabase();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    private Database instance() {
        Database db = Database.open(java.nio.file.Path.of("unused"), target);
        open.add(db);
        return db;
    }

    private ChangeFeed feed(Database db) {
        ChangeFeed feed = new ChangeFeed(db);
        open.add(feed);
        return feed;
    }

    @Test
    void twoInstancesStartingTogetherMigrateOnceUnderTheAdvisoryLock_NF6() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Database>> started = pool.invokeAll(List.<Callable<Database>>of(this::instance, this::instance));
            for (Future<Database> f : started) {
                assertThat(f.get().schemaVersion()).isEqualTo(Migrations.latestVersion(Database.Dialect.POSTGRESQL));
            }
        } finally {
            pool.shutdown();
        }
        List<Integer> versions = instance().withConnection(c -> {
            List<Integer> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT version FROM schema_migrations ORDER BY version");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1));
                }
            }
            return out;
        });
        assertThat(versions).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(Migrations.latestVersion(Database.Dialect.POSTGRESQL)).isEqualTo(Migrations.latestVersion());
    }

    @Test
    void theDatabaseReportsItsKindAndAUrlWithoutThePassword_NF6() {
        Database db = instance();
        assertThat(db.dialect()).isEqualTo(Database.Dialect.POSTGRESQL);
        assertThat(db.shared()).isTrue();
        assertThat(db.ping()).isTrue();
        assertThat(db.url()).startsWith("jdbc:postgresql://127.0.0.1:").doesNotContain(target.password());
    }

    @Test
    void connectionsKeysCombosAndSettingsRoundTripInThePostgresDialect() {
        Database db = instance();
        JdbcConnectionStore connections = new JdbcConnectionStore(db, box, clock);
        Connection a = connections.create(JdbcConnectionStoreTest.full());
        Connection b = connections.create(JdbcConnectionStoreTest.apiKey("openai", "second", "sk-SECRET", 2));
        assertThat(connections.list()).extracting(Connection::id).containsExactly(a.id(), b.id());
        assertThat(connections.find(a.id()).orElseThrow().oauth().accessToken()).isEqualTo("oauth-access-SECRET");
        connections.updateState(b.id(), new ConnectionState("cooldown", clock.millis() + 60_000, "429", "rate_limit", "429", 2, 0));
        assertThat(connections.find(b.id()).orElseThrow().state().rateLimitedUntil()).isEqualTo(clock.millis() + 60_000);
        assertThat(SealedCredentials.present(db)).isTrue();
        assertThat(connections.delete(a.id())).isTrue();
        assertThat(new JdbcConnectionStore(db, box, clock).list()).extracting(Connection::id).containsExactly(b.id());

        JdbcApiKeyStore keys = new JdbcApiKeyStore(db, clock);
        ApiKey k1 = keys.create("one", "hash-1", "sk-1…", List.of("inference"), List.of());
        ApiKey k2 = keys.create("two", "hash-2", "sk-2…", List.of("admin", "inference"), List.of(b.id()));
        assertThat(new JdbcApiKeyStore(db, clock).list()).extracting(ApiKey::id).containsExactly(k1.id(), k2.id());
        assertThat(keys.findByHash("hash-2").orElseThrow().allowedConnections()).containsExactly(b.id());
        assertThatThrownBy(() -> keys.create("dup", "hash-1", "x", List.of(), List.of())).isInstanceOf(StoreException.class);

        JdbcComboStore combos = new JdbcComboStore(db, new ObjectMapper(), clock);
        Combo combo = new Combo("fast", "priority", Map.of(), List.of(new ComboTarget("openai/gpt-4o", null, null, 1, null)), 0, 0);
        assertThat(combos.create(combo)).isPresent();
        assertThat(combos.create(combo)).isEmpty();
        assertThat(new JdbcComboStore(db, new ObjectMapper(), clock).find("fast").orElseThrow().targets()).hasSize(1);

        JdbcSettingsStore settings = new JdbcSettingsStore(db, clock);
        settings.put("settings", "{\"a\":1}");
        settings.put("settings", "{\"a\":2}");
        assertThat(settings.get("settings")).contains("{\"a\":2}");
    }

    @Test
    void breakerRowsLogsUsagePinsAndLeasesRoundTripInThePostgresDialect() {
        Database db = instance();
        JdbcBreakerStore breakers = new JdbcBreakerStore(db);
        breakers.save(new BreakerRow("openai", "api.openai.com", "apikey", "OPEN", 12, 1, 1_000L, 2_000L, "5xx", 0, 3_000L));
        breakers.save(new BreakerRow("openai", "api.openai.com", "apikey", "CLOSED", 0, 1, null, 2_000L, "5xx", 0, 4_000L));
        assertThat(breakers.loadAll()).singleElement().satisfies(r -> assertThat(r.state()).isEqualTo("CLOSED"));

        JdbcProxyLogStore logs = new JdbcProxyLogStore(db);
        logs.append(List.of(new ProxyLogRow(1_000, "r1", "openai", "c1", "m", 200, 10, null, "10.0.0.1"),
                new ProxyLogRow(2_000, "r2", "openai", "c1", "m", 429, 20, "rate_limit", "10.0.0.2")));
        assertThat(logs.recent(10)).extracting(ProxyLogRow::requestId).containsExactly("r2", "r1");
        assertThat(logs.lastEgressIps(List.of("c1"), 0)).containsEntry("c1", "10.0.0.2");
        assertThat(logs.prune(1_500, 100)).isEqualTo(1);

        JdbcUsageStore usage = new JdbcUsageStore(db);
        long day = Instant.parse("2026-03-04T10:00:00Z").toEpochMilli();
        usage.add(List.of(new UsageAggregate(day, "k1", "chat", "openai", "c1", "gpt", 1, 0, 10, 5, 0, 0, 30, 1),
                new UsageAggregate(day + 60_000, "k1", "chat", "openai", "c1", "gpt", 1, 1, 1, 1, 0, 0, 10, 2),
                new UsageAggregate(day, null, "chat", null, null, null, 1, 1, 0, 0, 0, 0, 1, 0)));
        assertThat(usage.totals(0, Long.MAX_VALUE, UsageStore.GroupBy.DAY)).hasSize(2).last().satisfies(s -> {
            assertThat(s.group()).isEqualTo("2026-03-04");
            assertThat(s.requests()).isEqualTo(2);
            assertThat(s.errors()).isEqualTo(1);
            assertThat(s.promptTokens()).isEqualTo(11);
        });
        assertThat(usage.totals(0, Long.MAX_VALUE, UsageStore.GroupBy.MODEL)).extracting(UsageStore.Sums::group)
                .containsExactly(null, "openai/gpt");
        // issue 33: the console's charts group by UTC hour and minute, named as the in-memory part names them
        assertThat(usage.totals(0, Long.MAX_VALUE, UsageStore.GroupBy.HOUR)).extracting(UsageStore.Sums::group)
                .containsOnly("2026-03-04T10:00:00Z");
        assertThat(usage.totals(0, Long.MAX_VALUE, UsageStore.GroupBy.MINUTE)).extracting(UsageStore.Sums::group)
                .containsOnly("2026-03-04T10:00:00Z", "2026-03-04T10:01:00Z");
        assertThat(usage.prune(day + 60_000, 100)).isEqualTo(2);

        JdbcSessionPinStore pins = new JdbcSessionPinStore(db);
        pins.save(new JdbcSessionPinStore.PinRow("sha256:s", "openai", "c1", 1, 2));
        pins.save(new JdbcSessionPinStore.PinRow("sha256:s", "openai", "c2", 1, 3));
        assertThat(pins.find("sha256:s", "openai").orElseThrow().connectionId()).isEqualTo("c2");
        assertThat(pins.deleteByConnection("c2")).isEqualTo(1);

        JdbcLeaseStore leases = new JdbcLeaseStore(db);
        leases.write(List.of(new LeaseRow("l1", "o1", "k1", "c1", "m", 1, "ACTIVE", null, 1000, 1, 1001, 1)));
        // SL-4: the partial unique index refuses a second active lease on the connection, on PostgreSQL too
        assertThatThrownBy(() -> leases.write(List.of(new LeaseRow("l2", "o2", "k1", "c1", "m", 1, "ACTIVE", null, 1000, 1, 1001, 1))))
                .isInstanceOf(StoreException.class);
        assertThat(leases.active()).extracting(LeaseRow::id).containsExactly("l1");
        assertThat(leases.latest("o1").orElseThrow().generation()).isEqualTo(1);
    }

    @Test
    void twoInstancesAddingToTheSameMinutesAtOnceLeaveTheSumOfBoth_DM3() throws Exception {
        Database a = instance();
        Database b = instance();
        long minute = Instant.parse("2026-03-04T10:00:00Z").toEpochMilli();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Callable<Void>> writers = new ArrayList<>();
            for (Database db : List.of(a, b)) {
                JdbcUsageStore store = new JdbcUsageStore(db);
                writers.add(() -> {
                    for (int flush = 0; flush < 20; flush++) {
                        List<UsageAggregate> buckets = new ArrayList<>();
                        for (int m = 0; m < 5; m++) {
                            buckets.add(new UsageAggregate(minute + m * 60_000L, "k" + m % 2, "chat", "openai", "c1", "gpt", 3, 1, 10, 5, 1, 1,
                                    30, 3));
                        }
                        store.add(buckets);
                    }
                    return null;
                });
            }
            for (Future<Void> f : pool.invokeAll(writers)) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        List<UsageStore.Sums> totals = new JdbcUsageStore(a).totals(0, Long.MAX_VALUE, UsageStore.GroupBy.PROVIDER);
        assertThat(totals).singleElement().satisfies(s -> {
            assertThat(s.requests()).isEqualTo(2 * 20 * 5 * 3);
            assertThat(s.promptTokens()).isEqualTo(2 * 20 * 5 * 10);
            assertThat(s.attempts()).isEqualTo(2 * 20 * 5 * 3);
        });
        long rows = a.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM usage"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
        assertThat(rows).as("one row per minute and bucket").isEqualTo(5);
    }

    @Test
    void theUpgradeTurnsPerRequestRowsIntoMinuteAggregatesInThePostgresDialect_DM3() {
        Database db = instance();
        long t = Instant.parse("2026-03-04T10:00:00Z").toEpochMilli();
        db.withConnection(c -> {
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("DROP TABLE usage");
                s.execute("ALTER TABLE provider_connections DROP COLUMN discovered_models"); // migration 7 (issue 32) runs again
                s.execute("ALTER TABLE api_keys DROP COLUMN allowed_models"); // migration 8 (issue 33) runs again
                for (String column : List.of("effect_kind", "effect_until", "effect_reason")) {
                    s.execute("ALTER TABLE proxy_logs DROP COLUMN " + column);
                }
                s.execute("DELETE FROM schema_migrations WHERE version >= 5");
                for (String sql : PostgresMigrations.ALL.get(4).statements()) {
                    s.execute(sql);
                }
                s.execute("INSERT INTO schema_migrations(version, description, applied_at) VALUES (5, 'usage', 0)");
                s.execute("INSERT INTO usage (ts, request_id, key_id, api, provider, connection_id, model, prompt_tokens, completion_tokens,"
                        + " cached_tokens, reasoning_tokens, status, latency_ms, attempts) VALUES"
                        + " (" + (t + 5_000) + ", 'r1', 'k1', 'chat', 'openai', 'c1', 'gpt', 10, 5, 2, NULL, 200, 30, 1),"
                        + " (" + (t + 40_000) + ", 'r2', 'k1', 'chat', 'openai', 'c1', 'gpt', NULL, NULL, NULL, NULL, 500, 10, 2),"
                        + " (" + (t + 62_000) + ", 'r3', NULL, 'chat', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 404, 1, 0)");
            }
            return null;
        });
        db.close();
        Database upgraded = instance();
        assertThat(upgraded.schemaVersion()).isEqualTo(Migrations.latestVersion(Database.Dialect.POSTGRESQL));
        assertThat(new JdbcUsageStore(upgraded).totals(0, Long.MAX_VALUE, UsageStore.GroupBy.KEY)).containsExactly(
                new UsageStore.Sums(null, null, null, 1, 1, 0, 0, 0, 0, 1, 0),
                new UsageStore.Sums("k1", "openai", "gpt", 2, 1, 10, 5, 2, 0, 40, 3));
    }

    @Test
    void aWriteOnOneInstanceReachesTheOtherInstancesSnapshotsWithinOneSecond_NF6() {
        Database a = instance();
        Database b = instance();
        JdbcConnectionStore connectionsA = new JdbcConnectionStore(a, box, clock);
        JdbcApiKeyStore keysA = new JdbcApiKeyStore(a, clock);
        JdbcComboStore combosA = new JdbcComboStore(a, new ObjectMapper(), clock);
        JdbcConnectionStore connectionsB = new JdbcConnectionStore(b, box, clock);
        JdbcApiKeyStore keysB = new JdbcApiKeyStore(b, clock);
        JdbcComboStore combosB = new JdbcComboStore(b, new ObjectMapper(), clock);
        ChangeFeed feedB = feed(b);
        connectionsB.follow(feedB);
        keysB.follow(feedB);
        combosB.follow(feedB);
        feedB.start();
        await().atMost(Duration.ofSeconds(5)).until(feedB::listening);

        Connection created = connectionsA.create(JdbcConnectionStoreTest.apiKey("openai", "shared", "sk-SHARED", 1));
        keysA.create("k", "hash-shared", "sk…", List.of("inference"), List.of());
        combosA.create(new Combo("c", "priority", Map.of(), List.of(new ComboTarget("openai/m", null, null, 1, null)), 0, 0));
        await().atMost(Duration.ofSeconds(1)).untilAsserted(() -> {
            assertThat(connectionsB.find(created.id())).isPresent();
            assertThat(keysB.findByHash("hash-shared")).isPresent();
            assertThat(combosB.find("c")).isPresent();
        });
        // one row: a cooldown written through A
        connectionsA.updateState(created.id(), new ConnectionState("cooldown", 99L, null, null, null, 1, 0));
        await().atMost(Duration.ofSeconds(1)).untilAsserted(() ->
                assertThat(connectionsB.find(created.id()).orElseThrow().state().rateLimitedUntil()).isEqualTo(99L));
        connectionsA.delete(created.id());
        await().atMost(Duration.ofSeconds(1)).untilAsserted(() -> assertThat(connectionsB.list()).isEmpty());
    }

    /**
     * Issue 32, shared mode: a connection's discovered models live in its own row, reach another
     * instance through the change feed, and go when the connection goes.
     */
    @Test
    void aDiscoveryStoredByOneInstanceReachesTheOtherAndGoesWithItsConnection_issue32() {
        Database a = instance();
        Database b = instance();
        JdbcConnectionStore connectionsA = new JdbcConnectionStore(a, box, clock);
        JdbcDiscoveredModels modelsA = new JdbcDiscoveredModels(a);
        JdbcDiscoveredModels modelsB = new JdbcDiscoveredModels(b);
        Map<String, String> seenByB = new java.util.concurrent.ConcurrentHashMap<>();
        ChangeFeed feedB = feed(b);
        modelsB.follow(feedB, (id, json) -> seenByB.put(id, json == null ? "<none>" : json));
        feedB.start();
        await().atMost(Duration.ofSeconds(5)).until(feedB::listening);

        Connection created = connectionsA.create(JdbcConnectionStoreTest.apiKey("openai", "shared", "sk-SHARED", 1));
        String json = "{\"ids\":[\"gpt-x\"],\"at\":1,\"error\":null}";
        assertThat(modelsA.save(created.id(), json)).isTrue();
        await().atMost(Duration.ofSeconds(1)).untilAsserted(() -> assertThat(seenByB).containsEntry(created.id(), json));
        assertThat(modelsB.find(created.id())).contains(json);
        assertThat(modelsB.all()).containsExactly(Map.entry(created.id(), json));

        connectionsA.delete(created.id());
        assertThat(modelsB.find(created.id())).isEmpty();
        assertThat(modelsA.save(created.id(), json)).as("a deleted connection keeps no list").isFalse();
    }

    @Test
    void afterItsConnectionDropsTheListenerReconnectsAndReReadsEverything_NF6() {
        Database a = instance();
        Database b = instance();
        JdbcApiKeyStore keysA = new JdbcApiKeyStore(a, clock);
        JdbcApiKeyStore keysB = new JdbcApiKeyStore(b, clock);
        ChangeFeed feedB = feed(b);
        keysB.follow(feedB);
        feedB.start();
        await().atMost(Duration.ofSeconds(5)).until(feedB::listening);

        // the listener's backend dies, and a key is written while B is away
        a.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()")) {
                ps.execute();
            }
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> !feedB.listening());
        keysA.create("while-away", "hash-away", "sk…", List.of("inference"), List.of());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(feedB.listening()).isTrue();
            assertThat(keysB.findByHash("hash-away")).isPresent();
        });
    }

    @Test
    void anUnreachableDatabaseFailsAWriteAsUnavailable_NF6() {
        Database db = instance();
        JdbcSettingsStore settings = new JdbcSettingsStore(db, clock);
        SharedPostgres.server().execute("postgres", "ALTER DATABASE " + target.url().substring(target.url().lastIndexOf('/') + 1)
                + " ALLOW_CONNECTIONS false");
        db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
                ps.execute();
            }
            return null;
        });
        // the pool's connection that ran the statement above is the only one left; it dies too
        SharedPostgres.server().execute("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + target.url().substring(target.url().lastIndexOf('/') + 1) + "'");
        assertThatThrownBy(() -> settings.put("k", "{}")).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.unavailable()).isTrue());
        assertThat(db.ping()).isFalse();
    }
}
