package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key/value settings as JSON (SPEC DM-3 {@code settings}, SE-1). */
class JdbcSettingsStoreTest {

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000);
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private Database db;
    private JdbcSettingsStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcSettingsStore(db, clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private long updatedAt(String key) {
        return db.withConnection(c -> {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT updated_at FROM settings WHERE key='" + key + "'")) {
                return rs.next() ? rs.getLong(1) : -1L;
            }
        });
    }

    @Test
    void missingSettingIsEmpty_SE1() {
        assertThat(store.get("sessionAffinityTtlMs")).isEmpty();
    }

    @Test
    void storedSettingIsReadBackVerbatim_SE1() {
        store.put("featureFlags", "{\"emergencyFallback\":true}");

        assertThat(store.get("featureFlags")).contains("{\"emergencyFallback\":true}");
        assertThat(updatedAt("featureFlags")).isEqualTo(1_000);
    }

    @Test
    void putOverwritesAndStampsTheClock_SE1() {
        store.put("k", "1");
        now.set(2_000);
        store.put("k", "2");

        assertThat(store.get("k")).contains("2");
        assertThat(updatedAt("k")).isEqualTo(2_000);
    }

    @Test
    void settingsSurviveAReopen_DM4() {
        store.put("k", "\"v\"");
        db.close();

        db = Database.open(dir);
        assertThat(new JdbcSettingsStore(db, clock).get("k")).contains("\"v\"");
    }
}
