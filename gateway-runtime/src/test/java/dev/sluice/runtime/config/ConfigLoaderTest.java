package dev.sluice.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.settings.ResilienceSettingsLayers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up configuration: defaults, YAML file, environment overrides (SPEC SH-4, SH-5, SE-2, SE-3). */
class ConfigLoaderTest {

    @TempDir
    Path home;

    private static final String FULL_YAML = """
            server:
              host: 0.0.0.0
              port: 8080
              maxBodyBytes: 2048
            storage:
              dataDir: var/db
            plugins:
              dir: ext
              strict: true
              settings:
                agentrouter:
                  region: cn
                  limits:
                    rpm: 60
                opencode:
                  tier: free
            security:
              adminKey: file-admin-key
              secretKey: file-secret
            upstream:
              connectTimeoutMs: 1500
              headersTimeoutMs: 2500
            """;

    private Path writeConfig(String yaml) throws IOException {
        Path conf = Files.createDirectories(home.resolve("conf"));
        return Files.writeString(conf.resolve("sluice.yaml"), yaml);
    }

    private SluiceConfig load(Map<String, String> env) {
        return ConfigLoader.load(home, env);
    }

    // ------------------------------------------------------------------ defaults (SE-3)

    @Test
    void egressProbeUrlIsUnsetByDefaultAndReadFromTheUpstreamSection_EB2() throws IOException {
        assertThat(load(Map.of()).egressProbeUrl()).isNull();

        writeConfig("upstream:\n  egressProbeUrl: https://ip.example.test/plain\n");
        assertThat(load(Map.of()).egressProbeUrl()).isEqualTo(java.net.URI.create("https://ip.example.test/plain"));

        writeConfig("upstream:\n  egressProbeUrl: \"  \"\n");
        assertThat(load(Map.of()).egressProbeUrl()).isNull();
    }

    @Test
    void anEgressProbeUrlThatIsNotAnAbsoluteHttpUrlStopsStartUpNamingTheSetting_EB2() throws IOException {
        for (String bad : List.of("ip.example.test/plain", "ftp://ip.example.test/", "http://")) {
            writeConfig("upstream:\n  egressProbeUrl: \"" + bad + "\"\n");
            assertThatThrownBy(() -> load(Map.of())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("upstream.egressProbeUrl must be an absolute http or https URL, got '" + bad + "'");
        }
    }

    @Test
    void defaultConstantsHaveTheSpecifiedValues_SE3() {
        assertThat(SluiceConfig.DEFAULT_HOST).isEqualTo("127.0.0.1");
        assertThat(SluiceConfig.DEFAULT_PORT).isEqualTo(20128);
        assertThat(SluiceConfig.DEFAULT_MAX_BODY_BYTES).isEqualTo(10_485_760L);
        assertThat(SluiceConfig.DEFAULT_CONNECT_TIMEOUT).isEqualTo(Duration.ofSeconds(10));
        assertThat(SluiceConfig.DEFAULT_HEADERS_TIMEOUT).isEqualTo(Duration.ofSeconds(110));
    }

    @Test
    void noConfigFileAndNoEnvironmentGivesEveryDefault_SH4_SE3() {
        SluiceConfig c = load(Map.of());

        assertThat(c.host()).isEqualTo(SluiceConfig.DEFAULT_HOST).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(SluiceConfig.DEFAULT_PORT).isEqualTo(20128);
        assertThat(c.dataDir()).isEqualTo(home.resolve("data"));
        assertThat(c.pluginsDir()).isEqualTo(home.resolve("plugins"));
        assertThat(c.strictPlugins()).isFalse();
        assertThat(c.adminKey()).isNull();
        assertThat(c.secretKey()).isNull();
        assertThat(c.maxBodyBytes()).isEqualTo(SluiceConfig.DEFAULT_MAX_BODY_BYTES).isEqualTo(10L * 1024 * 1024);
        assertThat(c.connectTimeout()).isEqualTo(SluiceConfig.DEFAULT_CONNECT_TIMEOUT).isEqualTo(Duration.ofMillis(10_000));
        assertThat(c.headersTimeout()).isEqualTo(SluiceConfig.DEFAULT_HEADERS_TIMEOUT).isEqualTo(Duration.ofMillis(110_000));
        assertThat(c.pluginSettings()).isEmpty();
    }

    @Test
    void emptyConfigFileGivesEveryDefault_SE3() throws IOException {
        writeConfig("# nothing here\n");

        assertThat(load(Map.of())).isEqualTo(load(Map.of("UNRELATED", "x")))
                .satisfies(c -> {
                    assertThat(c.host()).isEqualTo("127.0.0.1");
                    assertThat(c.port()).isEqualTo(20128);
                    assertThat(c.maxBodyBytes()).isEqualTo(10_485_760L);
                });
    }

    // ------------------------------------------------------------------ YAML file

    @Test
    void valuesComeFromConfSluiceYaml_SE2() throws IOException {
        writeConfig(FULL_YAML);

        SluiceConfig c = load(Map.of());

        assertThat(c.host()).isEqualTo("0.0.0.0");
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.maxBodyBytes()).isEqualTo(2048);
        assertThat(c.dataDir()).isEqualTo(home.resolve("var/db"));
        assertThat(c.pluginsDir()).isEqualTo(home.resolve("ext"));
        assertThat(c.strictPlugins()).isTrue();
        assertThat(c.adminKey()).isEqualTo("file-admin-key");
        assertThat(c.secretKey()).isEqualTo("file-secret");
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.headersTimeout()).isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void absoluteDirectoriesInTheFileAreKeptAsGiven_SE2() throws IOException {
        Path elsewhere = home.resolve("abs").toAbsolutePath();
        writeConfig("storage:\n  dataDir: " + elsewhere + "/data\nplugins:\n  dir: " + elsewhere + "/plugins\n");

        SluiceConfig c = load(Map.of());

        assertThat(c.dataDir()).isEqualTo(elsewhere.resolve("data"));
        assertThat(c.pluginsDir()).isEqualTo(elsewhere.resolve("plugins"));
    }

    @Test
    void pluginSettingsSectionIsMappedPerPluginWithFlattenedKeys_PA4() throws IOException {
        writeConfig(FULL_YAML);

        assertThat(load(Map.of()).pluginSettings()).isEqualTo(Map.of(
                "agentrouter", Map.of("region", "cn", "limits.rpm", "60"),
                "opencode", Map.of("tier", "free")));
    }

    @Test
    void routingModelAliasesAreReadKeepingDotsInNames_API1() throws IOException {
        writeConfig("""
                routing:
                  modelAliases:
                    "claude-*": glm/glm-4.6
                    "gpt-4.1": gemini/gemini-2.5-pro
                """);

        assertThat(load(Map.of()).modelAliases()).containsExactly(
                Map.entry("claude-*", "glm/glm-4.6"), Map.entry("gpt-4.1", "gemini/gemini-2.5-pro"));
        writeConfig("port: 1\n");
        assertThat(load(Map.of()).modelAliases()).isEmpty();
    }

    @Test
    void theModelsSectionAndAutoCombosAreRead_issue34() throws IOException {
        writeConfig("""
                models:
                  "openai/gpt-4.1":
                    contextWindow: 500000
                    inputPerMillion: 1.5
                  "acme/m":
                    tier: 2
                combos:
                  autoCombos: false
                """);
        SluiceConfig c = load(Map.of());
        assertThat(c.catalog().models()).containsEntry("openai/gpt-4.1", Map.of("contextWindow", "500000", "inputPerMillion", "1.5"))
                .containsEntry("acme/m", Map.of("tier", "2"));
        assertThat(c.catalog().autoCombos()).isFalse();
        writeConfig("port: 1\n");
        assertThat(load(Map.of()).catalog()).isEqualTo(SluiceConfig.CatalogSettings.DEFAULTS);
        assertThat(SluiceConfig.CatalogSettings.DEFAULTS.autoCombos()).isTrue();
    }

    // ------------------------------------------------------------------ environment overrides (SH-5)

    @Test
    void envHostBeatsTheFile_SH5() throws IOException {
        writeConfig(FULL_YAML);
        assertThat(load(Map.of(ConfigLoader.ENV_HOST, "::1")).host()).isEqualTo("::1");
        assertThat(ConfigLoader.ENV_HOST).isEqualTo("SLUICE_HOST");
    }

    @Test
    void envPortBeatsTheFileAndZeroMeansAnyFreePort_SH5() throws IOException {
        writeConfig(FULL_YAML);
        assertThat(load(Map.of("SLUICE_PORT", "9090")).port()).isEqualTo(9090);
        assertThat(load(Map.of("SLUICE_PORT", " 0 ")).port()).isZero();
        assertThat(ConfigLoader.ENV_PORT).isEqualTo("SLUICE_PORT");
    }

    @Test
    void envDataDirBeatsTheFileAndResolvesAgainstHome_SH5() throws IOException {
        writeConfig(FULL_YAML);
        assertThat(load(Map.of("SLUICE_DATA_DIR", "state")).dataDir()).isEqualTo(home.resolve("state"));
        Path abs = home.resolve("x/y").toAbsolutePath();
        assertThat(load(Map.of("SLUICE_DATA_DIR", abs.toString())).dataDir()).isEqualTo(abs);
        assertThat(ConfigLoader.ENV_DATA_DIR).isEqualTo("SLUICE_DATA_DIR");
    }

    @Test
    void envPluginsDirBeatsTheFile_SH5() throws IOException {
        writeConfig(FULL_YAML);
        assertThat(load(Map.of("SLUICE_PLUGINS_DIR", "more-plugins")).pluginsDir()).isEqualTo(home.resolve("more-plugins"));
        assertThat(ConfigLoader.ENV_PLUGINS_DIR).isEqualTo("SLUICE_PLUGINS_DIR");
    }

    @Test
    void envAdminKeyBeatsTheFile_SH5() throws IOException {
        writeConfig(FULL_YAML);
        assertThat(load(Map.of("SLUICE_ADMIN_KEY", "env-admin-key")).adminKey()).isEqualTo("env-admin-key");
        assertThat(ConfigLoader.ENV_ADMIN_KEY).isEqualTo("SLUICE_ADMIN_KEY");
    }

    @Test
    void envSecretKeyAndStrictPluginsBeatTheFile_SEC3() throws IOException {
        writeConfig(FULL_YAML);
        SluiceConfig c = load(Map.of("SLUICE_SECRET_KEY", "env-secret", "SLUICE_STRICT_PLUGINS", "false"));
        assertThat(c.secretKey()).isEqualTo("env-secret");
        assertThat(c.strictPlugins()).isFalse();
    }

    @Test
    void blankEnvValuesDoNotOverrideTheFile_SH5() throws IOException {
        writeConfig(FULL_YAML);

        SluiceConfig c = load(Map.of("SLUICE_HOST", " ", "SLUICE_PORT", "", "SLUICE_ADMIN_KEY", "  "));

        assertThat(c.host()).isEqualTo("0.0.0.0");
        assertThat(c.port()).isEqualTo(8080);
        assertThat(c.adminKey()).isEqualTo("file-admin-key");
    }

    @Test
    void envConfigPointsToAnotherYamlFile_SH5() throws IOException {
        writeConfig(FULL_YAML);
        Path other = Files.writeString(home.resolve("other.yaml"), "server:\n  port: 7000\n");

        SluiceConfig c = load(Map.of("SLUICE_CONFIG", other.toString()));

        assertThat(c.port()).isEqualTo(7000);
        assertThat(c.host()).as("conf/sluice.yaml is not read when SLUICE_CONFIG is set").isEqualTo("127.0.0.1");
        assertThat(ConfigLoader.ENV_CONFIG).isEqualTo("SLUICE_CONFIG");
    }

    @Test
    void envStillBeatsTheFileNamedBySluiceConfig_SH5() throws IOException {
        Path other = Files.writeString(home.resolve("other.yaml"), "server:\n  port: 7000\n");
        assertThat(load(Map.of("SLUICE_CONFIG", other.toString(), "SLUICE_PORT", "7001")).port()).isEqualTo(7001);
    }

    @Test
    void envConfigPointingToAMissingFileIsRejectedNamingIt_SH5() {
        Path missing = home.resolve("nope/sluice.yaml");

        assertThatThrownBy(() -> load(Map.of("SLUICE_CONFIG", missing.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLUICE_CONFIG")
                .hasMessageContaining(missing.toString());
    }

    @Test
    void envConfigPointingToAFolderIsRejected_SH5() {
        assertThatThrownBy(() -> load(Map.of("SLUICE_CONFIG", home.toString())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(home.toString());
    }

    @Test
    void blankEnvConfigFallsBackToTheDefaultFile_SH5() {
        assertThat(load(Map.of("SLUICE_CONFIG", "")).port()).isEqualTo(20128);
    }

    // ------------------------------------------------------------------ invalid values

    @Test
    void nonNumericPortInTheFileIsRejectedNamingTheSetting_SH5() throws IOException {
        writeConfig("server:\n  port: eighty\n");

        assertThatThrownBy(() -> load(Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("server.port must be an integer, got 'eighty'");
    }

    @Test
    void nonNumericEnvPortIsRejectedNamingTheVariable_SH5() {
        assertThatThrownBy(() -> load(Map.of("SLUICE_PORT", "http")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SLUICE_PORT must be an integer, got 'http'");
    }

    @Test
    void outOfRangePortIsRejected_SH5() {
        assertThatThrownBy(() -> load(Map.of("SLUICE_PORT", "70000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("70000");
        assertThatThrownBy(() -> load(Map.of("SLUICE_PORT", "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void outOfRangePortNamesTheSetting_SH5() throws IOException {
        assertThatThrownBy(() -> load(Map.of("SLUICE_PORT", "70000"))).hasMessageContaining("SLUICE_PORT");
        writeConfig("server:\n  port: 70000\n");
        assertThatThrownBy(() -> load(Map.of())).hasMessageContaining("server.port");
    }

    @Test
    void nonNumericBodyLimitAndTimeoutsAreRejectedNamingTheSetting_API6() throws IOException {
        writeConfig("server:\n  maxBodyBytes: 10MiB\n");
        assertThatThrownBy(() -> load(Map.of())).hasMessage("server.maxBodyBytes must be an integer, got '10MiB'");
        writeConfig("upstream:\n  connectTimeoutMs: 30s\n");
        assertThatThrownBy(() -> load(Map.of())).hasMessageContaining("upstream.connectTimeoutMs");
        writeConfig("upstream:\n  headersTimeoutMs: soon\n");
        assertThatThrownBy(() -> load(Map.of())).hasMessageContaining("upstream.headersTimeoutMs");
    }

    @Test
    void zeroBodyLimitIsRejected_API6() throws IOException {
        writeConfig("server:\n  maxBodyBytes: 0\n");
        assertThatThrownBy(() -> load(Map.of())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBodyBytes");
    }

    @Test
    void nonPositiveTimeoutsAreRejectedNamingTheSetting_SE1() throws IOException {
        writeConfig("upstream:\n  connectTimeoutMs: -5\n");
        assertThatThrownBy(() -> load(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upstream.connectTimeoutMs");
        writeConfig("upstream:\n  headersTimeoutMs: 0\n");
        assertThatThrownBy(() -> load(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upstream.headersTimeoutMs");
    }

    // ------------------------------------------------------------------ resilience settings (SE-2)

    @Test
    void resilienceSubtreeIsHandedOnAsNestedMapsListsAndText_SE2() throws IOException {
        writeConfig("""
                resilience:
                  modelLockout:
                    enabled: true
                    errorCodes: [429, 503]
                    maxCooldownMs: 600000
                  circuitBreaker:
                    apikey:
                      cooldownByKind:
                        rate_limit_exceeded: 60000
                """);

        assertThat(load(Map.of()).resilience()).isEqualTo(Map.of(
                "modelLockout", Map.of("enabled", "true", "errorCodes", List.of("429", "503"), "maxCooldownMs", "600000"),
                "circuitBreaker", Map.of("apikey", Map.of("cooldownByKind", Map.of("rate_limit_exceeded", "60000")))));
    }

    @Test
    void noResilienceSubtreeOrAScalarOneGivesNone_SE1() throws IOException {
        assertThat(load(Map.of()).resilience()).isEmpty();
        writeConfig(FULL_YAML);
        assertThat(load(Map.of()).resilience()).isEmpty();
        writeConfig("resilience: fast\n");
        assertThat(load(Map.of()).resilience()).as("not fatal: the defaults stay").isEmpty();
    }

    @Test
    void onlyTheResilienceVariablesOfTheEnvironmentAreKept_SE2() {
        SluiceConfig c = load(Map.of("SLUICE_MODEL_LOCKOUT_ENABLED", "1", "SLUICE_PROVIDER_COOLDOWN_MIN_MS", " ", "SLUICE_ADMIN_KEY",
                "secret-admin", "PATH", "/bin"));

        assertThat(c.resilienceEnv()).isEqualTo(Map.of("SLUICE_MODEL_LOCKOUT_ENABLED", "1", "SLUICE_PROVIDER_COOLDOWN_MIN_MS", " "));
        assertThat(load(Map.of()).resilienceEnv()).isEmpty();
    }

    @Test
    void resilienceSettingsFollowDefaultsThenFileThenEnvironment_SE2() throws IOException {
        writeConfig("""
                resilience:
                  circuitBreaker:
                    oauth:
                      failureThreshold: 20
                      resetTimeoutMs: 90000
                  modelLockout:
                    enabled: true
                    errorCodes: [429]
                """);
        SluiceConfig c = load(Map.of("SLUICE_CIRCUIT_BREAKER_OAUTH_THRESHOLD", "30", "SLUICE_MODEL_LOCKOUT_ENABLED", "false"));

        ResilienceSettings s = ResilienceSettingsLayers.configured(c.resilience(), c.resilienceEnv());

        assertThat(s.circuitBreaker().oauth().failureThreshold()).as("env").isEqualTo(30);
        assertThat(s.circuitBreaker().oauth().resetTimeoutMs()).as("file").isEqualTo(90_000);
        assertThat(s.circuitBreaker().oauth().degradationThreshold()).as("default").isEqualTo(5);
        assertThat(s.modelLockout().enabled()).as("env").isFalse();
        assertThat(s.modelLockout().errorCodes()).as("file").containsExactly(429);
    }

    @Test
    void badResilienceValuesInTheFileDoNotStopStartUp_SE1() throws IOException {
        writeConfig("""
                resilience:
                  modelLockout:
                    maxCooldownMs: 99999999
                    baseCooldownMs: soon
                  bogus: 1
                """);
        SluiceConfig c = load(Map.of());

        ResilienceSettings s = ResilienceSettingsLayers.configured(c.resilience(), c.resilienceEnv());

        assertThat(s.modelLockout().maxCooldownMs()).isEqualTo(3_600_000);
        assertThat(s.modelLockout().baseCooldownMs()).isEqualTo(120_000);
    }

    @Test
    void resilienceMapsAreImmutable_SE2() throws IOException {
        writeConfig("resilience:\n  modelLockout:\n    errorCodes: [429]\n");
        SluiceConfig c = load(Map.of("SLUICE_MODEL_LOCKOUT_ENABLED", "1"));

        assertThatThrownBy(() -> c.resilience().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> lockout = (Map<String, Object>) c.resilience().get("modelLockout");
        assertThatThrownBy(() -> lockout.put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        @SuppressWarnings("unchecked")
        List<Object> codes = (List<Object>) lockout.get("errorCodes");
        assertThatThrownBy(() -> codes.add("500")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> c.resilienceEnv().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    // ------------------------------------------------------------------ secrets

    @Test
    void toStringNeverShowsTheKeys_SEC2() throws IOException {
        writeConfig(FULL_YAML);
        String s = load(Map.of()).toString();

        assertThat(s).doesNotContain("file-admin-key").doesNotContain("file-secret").contains("adminKey=***");
        assertThat(load(Map.of("SLUICE_CONFIG", Files.writeString(home.resolve("e.yaml"), "a: 1\n").toString())).toString())
                .contains("adminKey=generated");
    }

    // ------------------------------------------------------------------ metrics and access log (issue 18)

    @Test
    void metricsAreBehindTheAdminKeyAndTheAccessLogIsAFileInTheDataFolderByDefault_issue18() {
        SluiceConfig c = load(Map.of());
        assertThat(c.observability().metricsPublic()).isFalse();
        assertThat(c.observability().accessLog()).isEqualTo(home.resolve("data/logs/access.log").toAbsolutePath().toString());
        assertThat(SluiceConfig.Observability.DEFAULT_ACCESS_LOG_FILE).isEqualTo("logs/access.log");
    }

    @Test
    void metricsPublicAndTheAccessLogComeFromTheFileAndTheEnvironmentOverridesThem_issue18() throws IOException {
        writeConfig("""
                metrics:
                  public: true
                logging:
                  accessLog: stdout
                """);
        SluiceConfig fromFile = load(Map.of());
        assertThat(fromFile.observability().metricsPublic()).isTrue();
        assertThat(fromFile.observability().accessLog()).isEqualTo("stdout");

        SluiceConfig fromEnv = load(Map.of(ConfigLoader.ENV_METRICS_PUBLIC, "false", ConfigLoader.ENV_ACCESS_LOG, "OFF"));
        assertThat(fromEnv.observability().metricsPublic()).isFalse();
        assertThat(fromEnv.observability().accessLog()).isEqualTo("off");

        SluiceConfig relative = load(Map.of(ConfigLoader.ENV_ACCESS_LOG, "logs/sluice-access.jsonl"));
        assertThat(relative.observability().accessLog()).isEqualTo(home.resolve("logs/sluice-access.jsonl").toAbsolutePath().toString());
    }

    @Test
    void theProxyLogSuccessSampleDefaultsToOnePercentAndComesFromTheFileOrTheEnvironment_issue26() throws IOException {
        assertThat(load(Map.of()).observability().proxyLogSuccessSample()).isEqualTo(0.01)
                .isEqualTo(SluiceConfig.Observability.DEFAULT_PROXY_LOG_SUCCESS_SAMPLE);
        writeConfig("""
                logging:
                  proxyLogSuccessSample: 0.25
                """);
        assertThat(load(Map.of()).observability().proxyLogSuccessSample()).isEqualTo(0.25);
        assertThat(load(Map.of(ConfigLoader.ENV_PROXY_LOG_SUCCESS_SAMPLE, "0")).observability().proxyLogSuccessSample()).isZero();
        assertThat(load(Map.of(ConfigLoader.ENV_PROXY_LOG_SUCCESS_SAMPLE, "1")).observability().proxyLogSuccessSample()).isEqualTo(1.0);
    }

    @Test
    void aProxyLogSuccessSampleOutsideZeroToOneStopsStartUpNamingTheSetting_issue26() throws IOException {
        for (String bad : List.of("1.5", "-0.1", "lots", "NaN")) {
            assertThatThrownBy(() -> load(Map.of(ConfigLoader.ENV_PROXY_LOG_SUCCESS_SAMPLE, bad)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLUICE_PROXY_LOG_SUCCESS_SAMPLE");
        }
        writeConfig("""
                logging:
                  proxyLogSuccessSample: 2
                """);
        assertThatThrownBy(() -> load(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("logging.proxyLogSuccessSample");
    }

    @Test
    void usageIsWrittenEveryTenSecondsByDefaultOrAsTheFileAndTheEnvironmentSay_issue26() throws IOException {
        assertThat(SluiceConfig.Observability.DEFAULT_USAGE_FLUSH_INTERVAL_MS).isEqualTo(10_000);
        assertThat(load(Map.of()).observability().usageFlushInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(new SluiceConfig.Observability(false, "off").usageFlushInterval()).isEqualTo(Duration.ofSeconds(10));
        writeConfig("""
                usage:
                  flushIntervalMs: 2500
                """);
        assertThat(load(Map.of()).observability().usageFlushInterval()).isEqualTo(Duration.ofMillis(2_500));
        assertThat(load(Map.of(ConfigLoader.ENV_USAGE_FLUSH_INTERVAL_MS, "60000")).observability().usageFlushInterval())
                .isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void modelDiscoveryRunsHourlyByDefaultOrAsTheFileAndTheEnvironmentSayAndZeroTurnsItOff_issue32() throws IOException {
        assertThat(SluiceConfig.DEFAULT_MODEL_DISCOVERY_INTERVAL).isEqualTo(Duration.ofHours(1));
        assertThat(load(Map.of()).modelDiscoveryInterval()).isEqualTo(Duration.ofHours(1));
        writeConfig("""
                upstream:
                  modelDiscoveryIntervalMs: 600000
                """);
        assertThat(load(Map.of()).modelDiscoveryInterval()).isEqualTo(Duration.ofMinutes(10));
        assertThat(load(Map.of(ConfigLoader.ENV_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS, "0")).modelDiscoveryInterval()).isZero();
        assertThat(ConfigLoader.ENV_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS).isEqualTo("SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS");
        assertThatThrownBy(() -> load(Map.of(ConfigLoader.ENV_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS, "-1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS must be 0 (off) or a positive number of milliseconds");
    }

    @Test
    void aUsageFlushIntervalOutsideOneSecondToOneMinuteStopsStartUpNamingTheSetting_issue26() throws IOException {
        assertThatThrownBy(() -> load(Map.of(ConfigLoader.ENV_USAGE_FLUSH_INTERVAL_MS, "999")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SLUICE_USAGE_FLUSH_INTERVAL_MS must be 1000–60000 ms");
        assertThatThrownBy(() -> load(Map.of(ConfigLoader.ENV_USAGE_FLUSH_INTERVAL_MS, "soon")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLUICE_USAGE_FLUSH_INTERVAL_MS must be an integer");
        writeConfig("""
                usage:
                  flushIntervalMs: 600000
                """);
        assertThatThrownBy(() -> load(Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("usage.flushIntervalMs must be 1000–60000 ms");
    }

    @Test
    void aMetricsPublicThatIsNotABooleanStopsStartUpNamingTheSetting_issue18() {
        assertThatThrownBy(() -> load(Map.of(ConfigLoader.ENV_METRICS_PUBLIC, "maybe")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SLUICE_METRICS_PUBLIC");
    }

    @Test
    void upstreamMemoryBoundsAreSettingsWithDefaults() throws IOException {
        assertThat(load(Map.of()).upstreamLimits()).isEqualTo(UpstreamLimits.DEFAULTS);
        assertThat(UpstreamLimits.DEFAULTS).isEqualTo(new UpstreamLimits(16L << 20, 4 << 20, 64L << 20, 128L << 20, 30_000, 180_000));
        writeConfig("upstream:\n  maxAnswerBytes: 2097152\n  maxEventBytes: 65536\n  answerBufferBytes: 8388608\n");
        assertThat(load(Map.of()).upstreamLimits()).isEqualTo(new UpstreamLimits(2 << 20, 64 << 10, 8 << 20, UpstreamLimits.DEFAULT_MAX_STREAM_BYTES,
                UpstreamLimits.DEFAULT_BODY_IDLE_TIMEOUT_MS, UpstreamLimits.DEFAULT_ANSWER_DEADLINE_MS));
        writeConfig("upstream:\n  maxStreamBytes: 8388608\n");
        assertThat(load(Map.of()).upstreamLimits().maxStreamBytes()).isEqualTo(8L << 20);
        // a per-answer bound above the default budget raises the budget's default with it
        writeConfig("upstream:\n  maxAnswerBytes: 134217728\n");
        assertThat(load(Map.of()).upstreamLimits().answerBufferBytes()).isEqualTo(128L << 20);
        for (String bad : new String[] {"maxAnswerBytes: 10", "maxEventBytes: 999999999999", "maxAnswerBytes: lots",
                "answerBufferBytes: 1024", "maxStreamBytes: 1024", "maxStreamBytes: lots"}) {
            writeConfig("upstream:\n  " + bad + "\n");
            String key = "upstream." + bad.substring(0, bad.indexOf(':'));
            assertThatThrownBy(() -> load(Map.of())).as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
        }
    }

    @Test
    void theUpstreamConnectTimeoutIsTenSecondsAndTheEnvironmentBeatsTheFile_issue32() throws IOException {
        assertThat(load(Map.of()).connectTimeout()).isEqualTo(Duration.ofSeconds(10));
        writeConfig("upstream:\n  connectTimeoutMs: 1500\n");
        assertThat(load(Map.of()).connectTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(load(Map.of(ConfigLoader.ENV_UPSTREAM_CONNECT_TIMEOUT_MS, "2500")).connectTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(ConfigLoader.ENV_UPSTREAM_CONNECT_TIMEOUT_MS).isEqualTo("SLUICE_UPSTREAM_CONNECT_TIMEOUT_MS");
        assertThatThrownBy(() -> load(Map.of(ConfigLoader.ENV_UPSTREAM_CONNECT_TIMEOUT_MS, "0")))
                .hasMessageContaining("SLUICE_UPSTREAM_CONNECT_TIMEOUT_MS");
    }

    @Test
    void wholeAnswerTimeBoundsAreSettingsWithDefaults_issue28() throws IOException {
        assertThat(load(Map.of()).upstreamLimits().bodyIdleTimeoutMs()).isEqualTo(UpstreamLimits.DEFAULT_BODY_IDLE_TIMEOUT_MS).isEqualTo(30_000);
        assertThat(load(Map.of()).upstreamLimits().answerDeadlineMs()).isEqualTo(UpstreamLimits.DEFAULT_ANSWER_DEADLINE_MS).isEqualTo(180_000);
        writeConfig("upstream:\n  bodyIdleTimeoutMs: 3000\n  answerDeadlineMs: 4000\n");
        assertThat(load(Map.of()).upstreamLimits()).isEqualTo(UpstreamLimits.DEFAULTS.withAnswerTimes(3_000, 4_000));
        for (String bad : new String[] {"bodyIdleTimeoutMs: 999", "bodyIdleTimeoutMs: soon", "answerDeadlineMs: 3600001", "answerDeadlineMs: 0"}) {
            writeConfig("upstream:\n  " + bad + "\n");
            String key = "upstream." + bad.substring(0, bad.indexOf(':'));
            assertThatThrownBy(() -> load(Map.of())).as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
        }
    }
}
