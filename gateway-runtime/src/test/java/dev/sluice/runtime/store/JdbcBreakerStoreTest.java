package dev.sluice.runtime.store;

import static dev.sluice.api.ProviderClass.APIKEY;
import static dev.sluice.api.ProviderClass.OAUTH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerView;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Breaker state in {@code domain_circuit_breakers} survives restarts (SPEC DM-3, CB-7): rows as
 * stored, and the breakers restored from them.
 */
class JdbcBreakerStoreTest {

    private static final BreakerKey GLM = new BreakerKey("glm", "open.bigmodel.cn:443");
    private static final BreakerKey ZAI = new BreakerKey("glm", "api.z.ai:443");

    @TempDir
    Path dir;

    private final TestClock clock = TestClock.create();
    private Database db;
    private JdbcBreakerStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcBreakerStore(db);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private void reopen() {
        db.close();
        db = Database.open(dir);
        store = new JdbcBreakerStore(db);
    }

    private static BreakerRow row(BreakerKey k, ProviderClass cls, BreakerState state, int failures, int cycles, Long openedAt,
            Long lastFailureAt, String kind, int streak, long updatedAt) {
        return new BreakerRow(k.provider(), k.host(), cls == null ? null : cls.wireName(), state.name(), failures, cycles,
                openedAt, lastFailureAt, kind, streak, updatedAt);
    }

    private static BreakerRow pristine(BreakerKey k) {
        return row(k, APIKEY, BreakerState.CLOSED, 0, 0, null, null, null, 0, 1);
    }

    @Test
    void rowsRoundTripWithNullsIntact_CB7() {
        BreakerRow open = row(GLM, OAUTH, BreakerState.OPEN, 8, 3, 1_000L, 900L, "timeout", 0, 1_000);
        BreakerRow fresh = row(ZAI, null, BreakerState.CLOSED, 0, 0, null, null, null, 0, 5);
        store.save(open);
        store.save(fresh);

        assertThat(store.loadAll()).containsExactly(fresh, open);
    }

    @Test
    void saveReplacesTheRowOfItsKey_CB7() {
        store.save(row(GLM, APIKEY, BreakerState.CLOSED, 6, 0, null, 10L, "server_error", 0, 10));
        BreakerRow degraded = row(GLM, APIKEY, BreakerState.DEGRADED, 7, 0, null, 20L, "server_error", 2, 20);
        store.save(degraded);

        assertThat(store.loadAll()).containsExactly(degraded);
        String row = db.withConnection(c -> {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT key, provider, host, state FROM domain_circuit_breakers")) {
                rs.next();
                return rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4);
            }
        });
        assertThat(row).isEqualTo("glm@open.bigmodel.cn:443|glm|open.bigmodel.cn:443|DEGRADED");
    }

    @Test
    void deleteRemovesOneRowAndDeleteAllEveryRow_CB7() {
        store.save(pristine(GLM));
        store.save(pristine(ZAI));
        store.delete(GLM.provider(), GLM.host());
        store.delete("nobody", "x:1");
        assertThat(store.loadAll()).extracting(BreakerRow::key).containsExactly(ZAI.toString());
        store.deleteAll();
        assertThat(store.loadAll()).isEmpty();
    }

    @Test
    void rowsSurviveAReopen_DM4() {
        BreakerRow s = row(GLM, APIKEY, BreakerState.HALF_OPEN, 13, 1, 7L, 7L, "network_error", 0, 9);
        store.save(s);
        reopen();
        assertThat(store.loadAll()).containsExactly(s);
    }

    @Test
    void unreadableRowsAreSkipped_CB7() {
        store.save(pristine(GLM));
        db.withConnection(c -> c.createStatement().executeUpdate(
                "INSERT INTO domain_circuit_breakers(key, provider, host, state, updated_at) VALUES ('x@y:1', 'x', 'y:1', 'MELTED', 0)"));
        assertThat(store.loadAll()).as("the store returns rows as stored").extracting(BreakerRow::state)
                .containsExactly("CLOSED", "MELTED");
        CircuitBreakers restored = CircuitBreakers.local(clock, () -> ResilienceSettings.DEFAULTS, dev.sluice.runtime.resilience.breaker.BreakerStore.rows(store));
        assertThat(restored.views()).as("the breakers skip the one that is no breaker").extracting(BreakerView::key)
                .containsExactly(GLM);
    }

    @Test
    void migrationTwoUpgradesAVersionOneDatabase_DM3() {
        db.withConnection(c -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DROP TABLE domain_circuit_breakers");
                s.executeUpdate("DROP TABLE combos");
                s.executeUpdate("DROP TABLE session_account_affinity");
                s.executeUpdate("DROP TABLE exclusive_connection_leases");
                s.executeUpdate("DROP TABLE usage");
                s.executeUpdate("ALTER TABLE provider_connections DROP COLUMN discovered_models"); // migration 7 (issue 32) runs again
                // migration 8 (issue 33) runs again
                s.executeUpdate("ALTER TABLE api_keys DROP COLUMN allowed_models");
                s.executeUpdate("ALTER TABLE proxy_logs DROP COLUMN effect_kind");
                s.executeUpdate("ALTER TABLE proxy_logs DROP COLUMN effect_until");
                s.executeUpdate("ALTER TABLE proxy_logs DROP COLUMN effect_reason");
                s.executeUpdate("DELETE FROM schema_migrations WHERE version >= 2");
            }
            return null;
        });
        reopen();
        assertThat(db.schemaVersion()).isEqualTo(Migrations.latestVersion());
        store.save(pristine(GLM));
        assertThat(store.loadAll()).hasSize(1);
    }

    @Test
    void anOpenBreakerStaysOpenAcrossARestartThenLetsOneProbeThrough_CB7() {
        CircuitBreakers breakers = CircuitBreakers.local(clock, () -> ResilienceSettings.DEFAULTS, dev.sluice.runtime.resilience.breaker.BreakerStore.rows(store));
        long t0 = clock.millis();
        for (int i = 0; i < 12; i++) {
            breakers.onFailure(GLM, APIKEY, "conn-" + i, "server_error");
        }
        clock.advance(Duration.ofSeconds(10));
        reopen();

        breakers = CircuitBreakers.local(clock, () -> ResilienceSettings.DEFAULTS, dev.sluice.runtime.resilience.breaker.BreakerStore.rows(store));
        assertThat(breakers.views()).containsExactly(new BreakerView(GLM, BreakerState.OPEN, 12, t0, 20_000, 0, "server_error"));
        assertThat(breakers.admit(GLM, APIKEY).admitted()).isFalse();
        clock.advance(Duration.ofSeconds(20));
        assertThat(breakers.admit(GLM, APIKEY).admitted()).isTrue();
        assertThat(breakers.admit(GLM, APIKEY).admitted()).isFalse();
        reopen();

        breakers = CircuitBreakers.local(clock, () -> ResilienceSettings.DEFAULTS, dev.sluice.runtime.resilience.breaker.BreakerStore.rows(store));
        assertThat(breakers.view(GLM, APIKEY).state()).as("half-open persisted, its probe not").isEqualTo(BreakerState.HALF_OPEN);
        assertThat(breakers.admit(GLM, APIKEY).admitted()).isTrue();
        breakers.onSuccess(GLM, APIKEY, "conn-0");
        assertThat(breakers.reset()).isEqualTo(1);
        reopen();
        assertThat(store.loadAll()).isEmpty();
    }
}
