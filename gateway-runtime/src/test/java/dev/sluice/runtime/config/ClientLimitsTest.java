package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Client connection bounds (issue 29): defaults, the heap-sized cap, settings and env vars. */
class ClientLimitsTest {

    @TempDir
    Path home;

    @Test
    void defaultsAreTenSecondsToTheFirstByteAndThirtyForTheHead() {
        assertThat(ClientLimits.DEFAULT_FIRST_BYTE_TIMEOUT).isEqualTo(Duration.ofSeconds(10));
        assertThat(ClientLimits.DEFAULT_REQUEST_HEAD_TIMEOUT).isEqualTo(Duration.ofSeconds(30));
        assertThat(ClientLimits.HEAP_BYTES_PER_CONNECTION).isEqualTo(32 * 1024);
        assertThat(ClientLimits.HEAP_SHARE_DIVISOR).isEqualTo(4);
    }

    @Test
    void theDefaultCapIsAQuarterOfTheHeapAt32KiBAConnectionAndHalfTheDescriptors() {
        long mib = 1024 * 1024;
        assertThat(ClientLimits.defaultMaxConnections(192 * mib, 20_000)).isEqualTo(1536);
        assertThat(ClientLimits.defaultMaxConnections(192 * mib, 0)).as("descriptor limit unknown").isEqualTo(1536);
        assertThat(ClientLimits.defaultMaxConnections(192 * mib, 1024)).isEqualTo(512);
        assertThat(ClientLimits.defaultMaxConnections(4 * mib, 1024)).as("floor").isEqualTo(64);
        assertThat(ClientLimits.defaultMaxConnections(4096 * mib, 1 << 20)).isEqualTo(32_768);
    }

    @Test
    void unsetSettingsTakeTheDefaults() {
        ClientLimits limits = ConfigLoader.load(home, Map.of()).clientLimits();
        assertThat(limits).isEqualTo(ClientLimits.defaults());
        assertThat(limits.maxConnections()).isEqualTo(ClientLimits.defaultMaxConnections(Runtime.getRuntime().maxMemory(),
                ClientLimits.maxFileDescriptors()));
    }

    @Test
    void theFileSetsThemAndEnvironmentVariablesBeatTheFile() throws Exception {
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/sluice.yaml"),
                "server:\n  maxConnections: 100\n  firstByteTimeoutMs: 2000\n  requestHeadTimeoutMs: 5000\n");
        assertThat(ConfigLoader.load(home, Map.of()).clientLimits())
                .isEqualTo(new ClientLimits(Duration.ofSeconds(2), Duration.ofSeconds(5), 100));
        assertThat(ConfigLoader.load(home, Map.of(ConfigLoader.ENV_MAX_CONNECTIONS, "7", ConfigLoader.ENV_FIRST_BYTE_TIMEOUT_MS, "300",
                ConfigLoader.ENV_REQUEST_HEAD_TIMEOUT_MS, "400")).clientLimits())
                .isEqualTo(new ClientLimits(Duration.ofMillis(300), Duration.ofMillis(400), 7));
    }

    @Test
    void theShutdownGraceIsFiveSecondsByDefaultSetByTheFileAndBeatenByTheEnvironment_issue37() throws Exception {
        assertThat(ClientLimits.DEFAULT_SHUTDOWN_GRACE).isEqualTo(Duration.ofSeconds(5));
        assertThat(ConfigLoader.load(home, Map.of()).clientLimits().shutdownGrace()).isEqualTo(Duration.ofSeconds(5));
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/sluice.yaml"), "server:\n  shutdownGraceMs: 20000\n");
        assertThat(ConfigLoader.load(home, Map.of()).clientLimits().shutdownGrace()).isEqualTo(Duration.ofSeconds(20));
        assertThat(ConfigLoader.load(home, Map.of(ConfigLoader.ENV_SHUTDOWN_GRACE_MS, "0")).clientLimits().shutdownGrace())
                .as("0: requests under way are ended at once").isZero();
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of(ConfigLoader.ENV_SHUTDOWN_GRACE_MS, "-1")))
                .hasMessageContaining("SLUICE_SHUTDOWN_GRACE_MS must be 0–3600000 ms, got -1");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of(ConfigLoader.ENV_SHUTDOWN_GRACE_MS, "soon")))
                .hasMessageContaining("SLUICE_SHUTDOWN_GRACE_MS must be an integer");
        Files.writeString(home.resolve("conf/sluice.yaml"), "server:\n  shutdownGraceMs: 3600001\n");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of())).hasMessageContaining("server.shutdownGraceMs must be 0–3600000 ms");
    }

    @Test
    void badValuesAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of(ConfigLoader.ENV_MAX_CONNECTIONS, "0")))
                .hasMessageContaining("SLUICE_MAX_CONNECTIONS must be 1–");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of(ConfigLoader.ENV_MAX_CONNECTIONS, "many")))
                .hasMessageContaining("SLUICE_MAX_CONNECTIONS must be an integer");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of(ConfigLoader.ENV_FIRST_BYTE_TIMEOUT_MS, "0")))
                .hasMessageContaining("SLUICE_FIRST_BYTE_TIMEOUT_MS must be a positive number of milliseconds");
        assertThatThrownBy(() -> ConfigLoader.load(home, Map.of(ConfigLoader.ENV_REQUEST_HEAD_TIMEOUT_MS, "-1")))
                .hasMessageContaining("SLUICE_REQUEST_HEAD_TIMEOUT_MS must be a positive number of milliseconds");
    }
}
