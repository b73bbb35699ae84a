package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Combos on SQLite (SPEC DM-3 {@code combos}, CO-1, DM-4). */
class JdbcComboStoreTest {

    @TempDir
    Path dir;

    private final TestClock clock = TestClock.create();
    private final ObjectMapper mapper = new ObjectMapper();
    private Database db;
    private JdbcComboStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcComboStore(db, mapper, clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static Combo combo(String name, String strategy, Map<String, Object> options, ComboTarget... targets) {
        return new Combo(name, strategy, options, List.of(targets), 0, 0);
    }

    private static final ComboTarget FULL = new ComboTarget("openai/gpt-4o", "conn-1", 3, 2, 0.0125);
    private static final ComboTarget BARE = new ComboTarget("glm/glm-4.6", null, null, null, null);

    @Test
    void createdComboIsReadBackWithEveryFieldAndTheClockStamps_CO1() {
        long t0 = clock.millis();
        Combo stored = store.create(combo("fast", "weighted", Map.of("seed", 7, "sticky", true, "nested", Map.of("a", List.of(1, "x"))),
                FULL, BARE)).orElseThrow();

        assertThat(stored.name()).isEqualTo("fast");
        assertThat(stored.strategy()).isEqualTo("weighted");
        assertThat(stored.strategyOptions()).isEqualTo(Map.of("seed", 7, "sticky", true, "nested", Map.of("a", List.of(1, "x"))));
        assertThat(stored.targets()).containsExactly(FULL, BARE);
        assertThat(stored.createdAt()).isEqualTo(t0);
        assertThat(stored.updatedAt()).isEqualTo(t0);
        assertThat(store.find("fast")).contains(stored);
        assertThat(store.list()).containsExactly(stored);
    }

    @Test
    void listIsOrderedByNameAndFindIsCaseSensitive_CO1() {
        store.create(combo("zeta", "priority", Map.of(), BARE));
        store.create(combo("alpha", "priority", Map.of(), BARE));
        store.create(combo("mid", "priority", Map.of(), BARE));

        assertThat(store.list()).extracting(Combo::name).containsExactly("alpha", "mid", "zeta");
        assertThat(store.find("Alpha")).isEmpty();
        assertThat(store.find("missing")).isEmpty();
    }

    @Test
    void creatingATakenNameIsEmptyAndKeepsTheFirst_CO1() {
        Combo first = store.create(combo("dup", "priority", Map.of(), BARE)).orElseThrow();
        clock.advance(Duration.ofSeconds(5));

        assertThat(store.create(combo("dup", "random", Map.of("x", 1), FULL))).isEmpty();
        assertThat(store.find("dup")).contains(first);
        assertThat(store.list()).hasSize(1);
    }

    @Test
    void updateReplacesStrategyOptionsAndTargetsKeepingCreatedAt_CO1() {
        long t0 = clock.millis();
        store.create(combo("c", "priority", Map.of("a", 1), FULL, BARE));
        clock.advance(Duration.ofMillis(1_500));

        Combo updated = store.update(combo("c", "round-robin", Map.of(), BARE)).orElseThrow();

        assertThat(updated.strategy()).isEqualTo("round-robin");
        assertThat(updated.strategyOptions()).isEmpty();
        assertThat(updated.targets()).containsExactly(BARE);
        assertThat(updated.createdAt()).isEqualTo(t0);
        assertThat(updated.updatedAt()).isEqualTo(t0 + 1_500);
        assertThat(store.find("c")).contains(updated);
    }

    @Test
    void updatingAMissingComboIsEmptyAndCreatesNothing_CO1() {
        assertThat(store.update(combo("ghost", "priority", Map.of(), BARE))).isEmpty();
        assertThat(store.list()).isEmpty();
    }

    @Test
    void deleteRemovesOnlyThatComboAndReportsWhetherItExisted_CO1() {
        store.create(combo("a", "priority", Map.of(), BARE));
        store.create(combo("b", "priority", Map.of(), BARE));

        assertThat(store.delete("a")).isTrue();
        assertThat(store.delete("a")).isFalse();
        assertThat(store.find("a")).isEmpty();
        assertThat(store.list()).extracting(Combo::name).containsExactly("b");
    }

    @Test
    void combosSurviveARestart_DM4() {
        Combo a = store.create(combo("a", "cost-optimized", Map.of("maxCost", 1.5), FULL, BARE)).orElseThrow();
        clock.advance(Duration.ofSeconds(1));
        Combo b = store.update(combo("a", "weighted", Map.of("maxCost", 2.5), FULL)).orElseThrow();
        store.create(combo("gone", "priority", Map.of(), BARE));
        store.delete("gone");
        db.close();

        db = Database.open(dir);
        JdbcComboStore reopened = new JdbcComboStore(db, mapper, clock);
        assertThat(reopened.list()).containsExactly(b);
        assertThat(b.createdAt()).isEqualTo(a.createdAt());
        assertThat(reopened.find("a").orElseThrow().targets()).containsExactly(FULL);
        assertThat(reopened.find("gone")).isEmpty();
    }

    @Test
    void nullTargetFieldsAreNotStoredAndReadBackAsNull_CO1() {
        store.create(combo("n", "priority", Map.of(), BARE));

        String targets = db.withConnection(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT targets FROM combos WHERE name='n'")) {
                rs.next();
                return rs.getString(1);
            }
        });
        assertThat(targets).isEqualTo("[{\"model\":\"glm/glm-4.6\"}]");
        assertThat(new JdbcComboStore(db, mapper, clock).find("n").orElseThrow().targets()).containsExactly(BARE);
    }

    @Test
    void aVersionTwoDatabaseGainsTheCombosTable_DM3() {
        db.withConnection(c -> {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE combos");
                s.execute("DROP TABLE session_account_affinity");
                s.execute("DROP TABLE exclusive_connection_leases");
                s.execute("DROP TABLE usage");
                s.execute("ALTER TABLE provider_connections DROP COLUMN discovered_models"); // migration 7 (issue 32) runs again
                // migration 8 (issue 33) runs again
                s.execute("ALTER TABLE api_keys DROP COLUMN allowed_models");
                s.execute("ALTER TABLE proxy_logs DROP COLUMN effect_kind");
                s.execute("ALTER TABLE proxy_logs DROP COLUMN effect_until");
                s.execute("ALTER TABLE proxy_logs DROP COLUMN effect_reason");
                s.execute("DELETE FROM schema_migrations WHERE version>=3");
            }
            return null;
        });
        db.close();

        db = Database.open(dir);
        assertThat(db.schemaVersion()).isEqualTo(Migrations.latestVersion());
        assertThat(new JdbcComboStore(db, mapper, clock).create(combo("x", "priority", Map.of(), BARE))).isPresent();
    }
}
