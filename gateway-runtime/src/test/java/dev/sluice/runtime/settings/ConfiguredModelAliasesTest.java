package dev.sluice.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcSettingsStore;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The config file's {@code routing.modelAliases}: in force until a PATCH, back again on {@code null}, across restarts. */
class ConfiguredModelAliasesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> FILE = Map.of("claude-*", "glm/glm-4.6", "gpt-4.1", "gemini/gemini-2.5-pro");

    @TempDir
    Path dir;

    private final TestClock clock = TestClock.create();
    private Database db;

    @BeforeEach
    void open() {
        db = Database.open(dir);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private GeneralSettingsService restart(Map<String, String> configured) {
        db.close();
        db = Database.open(dir);
        return new GeneralSettingsService(new JdbcSettingsStore(db, clock), null, configured, 0);
    }

    @Test
    void theFileAliasesApplyUntilPatchedAndComeBackOnNull_API1() throws Exception {
        GeneralSettingsService s = new GeneralSettingsService(new JdbcSettingsStore(db, clock), null, FILE, 0);
        assertThat(s.modelAliases().resolve("claude-sonnet-4-5")).isEqualTo("glm/glm-4.6");
        assertThat(s.modelAliases().resolve("gpt-4.1")).isEqualTo("gemini/gemini-2.5-pro");
        assertThat(s.tree().get("modelAliases").size()).isEqualTo(2);

        // an unrelated patch keeps the file's aliases, also after a restart
        s.patch(JSON.readTree("{\"featureFlags\":{\"emergencyFallback\":\"glm/glm-4.6\"}}"));
        s = restart(FILE);
        assertThat(s.modelAliases().resolve("claude-sonnet-4-5")).isEqualTo("glm/glm-4.6");

        s.patch(JSON.readTree("{\"modelAliases\":{\"fast\":\"gemini/gemini-2.5-flash\"}}"));
        assertThat(s.modelAliases().resolve("claude-sonnet-4-5")).as("the patch replaces the file's").isEqualTo("claude-sonnet-4-5");
        s = restart(FILE);
        assertThat(s.modelAliases().resolve("fast")).as("the patch survives a restart").isEqualTo("gemini/gemini-2.5-flash");
        assertThat(s.modelAliases().resolve("gpt-4.1")).isEqualTo("gpt-4.1");

        s.patch(JSON.readTree("{\"modelAliases\":{}}"));
        assertThat(s.tree().get("modelAliases").size()).as("an empty object means no aliases at all").isZero();
        s = restart(FILE);
        assertThat(s.modelAliases().resolve("gpt-4.1")).isEqualTo("gpt-4.1");

        s.patch(JSON.readTree("{\"modelAliases\":null}"));
        assertThat(s.modelAliases().resolve("gpt-4.1")).isEqualTo("gemini/gemini-2.5-pro");
        s = restart(Map.of("gpt-4.1", "glm/glm-4.6"));
        assertThat(s.modelAliases().resolve("gpt-4.1")).as("the file's current aliases after a restart").isEqualTo("glm/glm-4.6");
    }

    @Test
    void anInvalidFileAliasIsIgnoredNotFatal() {
        GeneralSettingsService s = new GeneralSettingsService(new JdbcSettingsStore(db, clock), null, Map.of("*", "glm/glm-4.6"), 0);
        assertThat(s.modelAliases()).isEqualTo(ModelAliases.NONE);
    }
}
