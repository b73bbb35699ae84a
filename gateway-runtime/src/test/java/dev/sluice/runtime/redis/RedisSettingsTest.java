package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SLUICE_REDIS_URL (NF-6): the shared hot state's server, its password never shown; only with a shared database. */
class RedisSettingsTest {

    @TempDir
    Path home;

    @Test
    void unsetSharesNothing_NF6() {
        assertThat(ConfigLoader.load(home, Map.of()).redis()).isSameAs(RedisSettings.NONE);
    }

    @Test
    void withTheDatabaseUrlBothAreRead_NF6() throws Exception {
        var c = ConfigLoader.load(home, Map.of("SLUICE_DATABASE_URL", "jdbc:postgresql://db/s", "SLUICE_REDIS_URL", "redis://:pw@cache:6390/1",
                "SLUICE_REDIS_PERMIT_TTL_MS", "5000"));
        assertThat(c.redis().url()).isEqualTo("redis://cache:6390/1");
        assertThat(c.redis().permitTtl()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.toString()).doesNotContain("pw@").contains("redis://cache:6390/1");
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/sluice.yaml"), "database:\n  url: jdbc:postgresql://db/s\nredis:\n  url: redis://cache\n  permitTtlMs: 2000\n");
        var file = ConfigLoader.load(home, Map.of()).redis();
        assertThat(file.url()).isEqualTo("redis://cache:6379/0");
        assertThat(file.permitTtl()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void redisWithoutTheSharedDatabaseIsRefusedWithWhatToDo_NF6() {
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of("SLUICE_REDIS_URL", "redis://:pw@cache:6379")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLUICE_DATABASE_URL").hasMessageContaining("set both").hasMessageNotContaining("pw");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of("SLUICE_DATABASE_URL", "jdbc:postgresql://db/s",
                "SLUICE_REDIS_PERMIT_TTL_MS", "5000"))).hasMessageContaining("SLUICE_REDIS_URL");
    }

    @Test
    void readsHostPortDatabaseAndPasswordAndShowsNoPassword_NF6() {
        RedisSettings s = RedisSettings.of("redis://:s3cret@127.0.0.1:6380/2", null, "SLUICE_REDIS_URL");
        assertThat(s.host()).isEqualTo("127.0.0.1");
        assertThat(s.port()).isEqualTo(6380);
        assertThat(s.database()).isEqualTo(2);
        assertThat(s.password()).isEqualTo("s3cret");
        assertThat(s.url()).isEqualTo("redis://127.0.0.1:6380/2");
        assertThat(s.toString()).doesNotContain("s3cret");
        assertThat(s.permitTtl()).isEqualTo(RedisSettings.DEFAULT_PERMIT_TTL).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.timeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void defaultsPortAndDatabase_NF6() {
        RedisSettings s = RedisSettings.of("redis://cache.internal", null, "SLUICE_REDIS_URL");
        assertThat(s.url()).isEqualTo("redis://cache.internal:6379/0");
        assertThat(s.password()).isNull();
        assertThat(RedisSettings.of(" ", null, "x")).isSameAs(RedisSettings.NONE);
    }

    @Test
    void refusesOtherSchemesUserNamesAndBadDatabasesWithoutShowingThePassword_NF6() {
        assertThatThrownBy(() -> RedisSettings.of("rediss://:pw@h:1", null, "SLUICE_REDIS_URL"))
                .hasMessageContaining("SLUICE_REDIS_URL").hasMessageNotContaining("pw@");
        assertThatThrownBy(() -> RedisSettings.of("redis://admin:topsecret@h:1", null, "SLUICE_REDIS_URL"))
                .hasMessageContaining("password only").hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> RedisSettings.of("redis://h:1/x", null, "SLUICE_REDIS_URL")).hasMessageContaining("database number");
        assertThatThrownBy(() -> RedisSettings.of("redis://h:1/0", 500L, "SLUICE_REDIS_URL")).hasMessageContaining("at least 1000");
    }
}
