package dev.sluice.runtime.store;

import dev.sluice.runtime.config.ConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SLUICE_DATABASE_URL (NF-6): PostgreSQL or the default SQLite, credentials kept out of the URL that is shown. */
class DatabaseSettingsTest {

    @TempDir
    Path home;

    @Test
    void unsetKeepsTheEmbeddedSqliteDatabase_NF6() {
        DatabaseSettings d = ConfigLoader.load(home, Map.of()).database();
        assertThat(d).isEqualTo(DatabaseSettings.SQLITE);
        assertThat(d.postgres()).isFalse();
        assertThat(d.kind()).isEqualTo("sqlite");
    }

    @Test
    void aPostgresUrlWithCredentialsIsSplitSoTheUrlCarriesNoPassword_NF6() {
        DatabaseSettings d = ConfigLoader.load(home, Map.of("SLUICE_DATABASE_URL",
                "jdbc:postgresql://sluice:s%40cret@db.internal:5432/sluice?sslmode=disable")).database();
        assertThat(d.url()).isEqualTo("jdbc:postgresql://db.internal:5432/sluice?sslmode=disable");
        assertThat(d.user()).isEqualTo("sluice");
        assertThat(d.password()).isEqualTo("s@cret");
        assertThat(d.toString()).doesNotContain("s@cret");
        DatabaseSettings q = DatabaseSettings.of("jdbc:postgresql://db/sluice?user=u&password=pw&ssl=true", null, null, "x");
        assertThat(q.url()).isEqualTo("jdbc:postgresql://db/sluice?ssl=true");
        assertThat(q.user()).isEqualTo("u");
        assertThat(q.password()).isEqualTo("pw");
    }

    @Test
    void theVariablesBeatTheUrlsCredentialsAndTheFileIsReadToo_NF6() throws Exception {
        DatabaseSettings env = ConfigLoader.load(home, Map.of("SLUICE_DATABASE_URL", "jdbc:postgresql://u:urlpw@db/s",
                "SLUICE_DATABASE_USER", "envuser", "SLUICE_DATABASE_PASSWORD", "envpw")).database();
        assertThat(env.user()).isEqualTo("envuser");
        assertThat(env.password()).isEqualTo("envpw");
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/sluice.yaml"), """
                database:
                  url: jdbc:postgresql://127.0.0.1:5433/sluice
                  user: fileuser
                  password: filepw
                """);
        DatabaseSettings file = ConfigLoader.load(home, Map.of()).database();
        assertThat(file).isEqualTo(new DatabaseSettings("jdbc:postgresql://127.0.0.1:5433/sluice", "fileuser", "filepw"));
    }

    @Test
    void aUrlThatIsNotPostgresIsRefusedAtStartWithoutShowingItsPassword_NF6() {
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of("SLUICE_DATABASE_URL", "jdbc:mysql://root:hunter2@db/sluice")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLUICE_DATABASE_URL must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of("SLUICE_DATABASE_USER", "u")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLUICE_DATABASE_URL (database.url) is not");
    }

    @Test
    void maskHidesPasswordsInUserInfoAndParameters() {
        assertThat(DatabaseSettings.mask("jdbc:postgresql://u:pw@h:1/d")).isEqualTo("jdbc:postgresql://u:***@h:1/d");
        assertThat(DatabaseSettings.mask("jdbc:postgresql://h/d?user=u&password=pw&x=1")).isEqualTo("jdbc:postgresql://h/d?user=u&password=***&x=1");
        assertThat(DatabaseSettings.mask("jdbc:postgresql://h/d")).isEqualTo("jdbc:postgresql://h/d");
    }
}
