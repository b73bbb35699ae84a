package dev.sluice.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.settings.ResilienceEnvironment.EnvOverride;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The configured layers (SE-2): defaults &lt; {@code resilience:} of the config file &lt;
 * environment; bad values there are clamped or ignored with one warning each, never fatal (SE-1).
 */
class ResilienceSettingsLayersTest {

    private final List<String> warnings = new ArrayList<>();

    private ResilienceSettings configured(Map<String, ?> yaml, Map<String, String> env) {
        return ResilienceSettingsLayers.configured(yaml, env, warnings::add);
    }

    /** A YAML subtree as Helidon Config hands it over: nested maps, lists, text scalars. */
    private static Map<String, Object> yaml(Object... pathsAndValues) {
        Map<String, Object> root = new LinkedHashMap<>();
        for (int i = 0; i < pathsAndValues.length; i += 2) {
            String[] parts = ((String) pathsAndValues[i]).split("\\.");
            Map<String, Object> at = root;
            for (int j = 0; j < parts.length - 1; j++) {
                @SuppressWarnings("unchecked")
                Map<String, Object> next = (Map<String, Object>) at.computeIfAbsent(parts[j], k -> new LinkedHashMap<String, Object>());
                at = next;
            }
            at.put(parts[parts.length - 1], pathsAndValues[i + 1]);
        }
        return root;
    }

    @Test
    void nothingConfiguredGivesTheDefaultsSilently_SE2_SE3() {
        assertThat(configured(Map.of(), Map.of())).isEqualTo(ResilienceSettings.DEFAULTS);
        assertThat(configured(Map.of(), Map.of("SLUICE_PORT", "1", "SLUICE_MODEL_LOCKOUT_ENABLED", "  "))).isEqualTo(ResilienceSettings.DEFAULTS);
        assertThat(warnings).isEmpty();
    }

    @Test
    void theConfigFileBeatsTheDefaults_SE2() {
        ResilienceSettings s = configured(yaml(
                "circuitBreaker.apikey.failureThreshold", "20",
                "circuitBreaker.apikey.cooldownByKind", Map.of("rate_limit_exceeded", "60000"),
                "providerCooldown.enabled", "true",
                "connectionCooldown.oauth.maxBackoffSteps", "4",
                "streamStallCooldown.enabled", "yes",
                "modelLockout.errorCodes", List.of("429", "503", "429"),
                "modelLockout.baseCooldownMs", "60000"), Map.of());

        assertThat(s.circuitBreaker().apikey().failureThreshold()).isEqualTo(20);
        assertThat(s.circuitBreaker().apikey().degradationThreshold()).isEqualTo(7);
        assertThat(s.circuitBreaker().apikey().cooldownByKind()).isEqualTo(Map.of("rate_limit_exceeded", 60_000L));
        assertThat(s.providerCooldown().enabled()).isTrue();
        assertThat(s.connectionCooldown().oauth().maxBackoffSteps()).isEqualTo(4);
        assertThat(s.connectionCooldown().oauth().baseCooldownMs()).isEqualTo(5_000);
        assertThat(s.streamStallCooldown().enabled()).isTrue();
        assertThat(s.modelLockout().errorCodes()).containsExactly(429, 503);
        assertThat(s.modelLockout().baseCooldownMs()).isEqualTo(60_000);
        assertThat(s.modelLockout().maxCooldownMs()).isEqualTo(1_800_000);
        assertThat(warnings).isEmpty();
    }

    @Test
    void theEnvironmentBeatsTheConfigFile_SE2_PC4() {
        ResilienceSettings s = configured(
                yaml("providerCooldown.apikey.failureThreshold", "20", "providerCooldown.apikey.cooldownMs", "120000",
                        "modelLockout.enabled", "false"),
                Map.of("SLUICE_PROVIDER_BREAKER_API_KEY_FAILURE_THRESHOLD", "25", "SLUICE_MODEL_LOCKOUT_ENABLED", "on"));

        assertThat(s.providerCooldown().apikey().failureThreshold()).as("env over file").isEqualTo(25);
        assertThat(s.providerCooldown().apikey().cooldownMs()).as("file, no env").isEqualTo(120_000);
        assertThat(s.providerCooldown().apikey().failureWindowMs()).as("default").isEqualTo(1_800_000);
        assertThat(s.modelLockout().enabled()).isTrue();
    }

    @Test
    void everyEnvironmentVariableSetsItsSetting_SE2() {
        for (EnvOverride o : ResilienceEnvironment.OVERRIDES) {
            boolean bool = o.path().endsWith(".enabled");
            // 7 is inside every integer bound reachable here except the millisecond ones, and 70 s inside every one of those
            String value = bool ? "true" : o.path().endsWith("Ms") ? "70000" : "7";
            ResilienceSettings s = configured(Map.of(), Map.of(o.variable(), value));

            Object actual = Trees.at(ResilienceSettingsCodec.toJson(s), o.path());
            assertThat(actual).as(o.variable()).hasToString(bool ? "true" : value);
        }
        assertThat(warnings).as("an apikey breaker threshold of 7 makes the default degradation threshold 7 give way")
                .containsExactly("resilience setting circuitBreaker.apikey.degradationThreshold = 7 must be ≤ failureThreshold − 1 (6);"
                        + " clamped to 6");
    }

    @Test
    void theEnvironmentTableIsTheDocumentedOne_PC4() {
        assertThat(ResilienceEnvironment.OVERRIDES).extracting(EnvOverride::variable, EnvOverride::path).containsExactly(
                tuple("SLUICE_CIRCUIT_BREAKER_OAUTH_THRESHOLD", "circuitBreaker.oauth.failureThreshold"),
                tuple("SLUICE_CIRCUIT_BREAKER_OAUTH_RESET_MS", "circuitBreaker.oauth.resetTimeoutMs"),
                tuple("SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "circuitBreaker.apikey.failureThreshold"),
                tuple("SLUICE_CIRCUIT_BREAKER_API_KEY_RESET_MS", "circuitBreaker.apikey.resetTimeoutMs"),
                tuple("SLUICE_CIRCUIT_BREAKER_LOCAL_THRESHOLD", "circuitBreaker.local.failureThreshold"),
                tuple("SLUICE_CIRCUIT_BREAKER_LOCAL_RESET_MS", "circuitBreaker.local.resetTimeoutMs"),
                tuple("SLUICE_PROVIDER_COOLDOWN_ENABLED", "providerCooldown.enabled"),
                tuple("SLUICE_PROVIDER_COOLDOWN_MIN_MS", "providerCooldown.minRetryCooldownMs"),
                tuple("SLUICE_PROVIDER_COOLDOWN_MAX_MS", "providerCooldown.maxRetryCooldownMs"),
                tuple("SLUICE_PROVIDER_BREAKER_OAUTH_FAILURE_THRESHOLD", "providerCooldown.oauth.failureThreshold"),
                tuple("SLUICE_PROVIDER_BREAKER_OAUTH_FAILURE_WINDOW_MS", "providerCooldown.oauth.failureWindowMs"),
                tuple("SLUICE_PROVIDER_BREAKER_OAUTH_COOLDOWN_MS", "providerCooldown.oauth.cooldownMs"),
                tuple("SLUICE_PROVIDER_BREAKER_API_KEY_FAILURE_THRESHOLD", "providerCooldown.apikey.failureThreshold"),
                tuple("SLUICE_PROVIDER_BREAKER_API_KEY_FAILURE_WINDOW_MS", "providerCooldown.apikey.failureWindowMs"),
                tuple("SLUICE_PROVIDER_BREAKER_API_KEY_COOLDOWN_MS", "providerCooldown.apikey.cooldownMs"),
                tuple("SLUICE_MODEL_LOCKOUT_ENABLED", "modelLockout.enabled"),
                tuple("SLUICE_SERVICE_UNAVAILABLE_COOLDOWN_ENABLED", "serviceUnavailableCooldown.enabled"),
                tuple("RATE_LIMIT_MAX_WAIT_MS", "requestQueue.maxWaitMs"),
                tuple("RATE_LIMIT_EXECUTION_MAX_WAIT_MS", "requestQueue.executionMaxWaitMs"),
                tuple("RATE_LIMIT_MAX_QUEUE_DEPTH", "requestQueue.maxQueueDepth"),
                tuple("STREAM_READINESS_TIMEOUT_MS", "streamRecovery.readinessTimeoutMs"),
                tuple("STREAM_IDLE_TIMEOUT_MS", "streamRecovery.idleTimeoutMs"),
                tuple("SSE_HEARTBEAT_INTERVAL_MS", "streamRecovery.keepAliveIntervalMs"),
                tuple("STREAM_ATTEMPT_DEADLINE_MS", "streamRecovery.attemptDeadlineMs"),
                tuple("STREAM_THROUGHPUT_WATCHDOG_ENABLED", "streamRecovery.throughputWatchdog.enabled"));
    }

    @Test
    void theStreamRecoveryVariablesSetTheirTimersAndTheFileSetsTheRest_ST0_ST2_SE2() {
        ResilienceSettings s = configured(
                yaml("streamRecovery.earlyEofRetries", "2", "streamRecovery.idleTimeoutMs", "240000",
                        "streamRecovery.throughputWatchdog.windowMs", "120000", "streamRecovery.throughputWatchdog.enabled", "true"),
                Map.of("STREAM_READINESS_TIMEOUT_MS", "120000", "STREAM_IDLE_TIMEOUT_MS", "0", "SSE_HEARTBEAT_INTERVAL_MS", "20000",
                        "STREAM_ATTEMPT_DEADLINE_MS", "3600000", "STREAM_THROUGHPUT_WATCHDOG_ENABLED", "off"));

        assertThat(s.streamRecovery()).isEqualTo(new ResilienceSettings.StreamRecovery(120_000, 0, 20_000, 3_600_000, 2,
                new ResilienceSettings.StreamRecovery.ThroughputWatchdog(false, 120_000, 30_000, 8, 256)));
        assertThat(warnings).isEmpty();
        for (String on : List.of("true", "1", "on")) {
            assertThat(configured(Map.of(), Map.of("STREAM_THROUGHPUT_WATCHDOG_ENABLED", on)).streamRecovery().throughputWatchdog().enabled())
                    .as(on).isTrue();
        }
    }

    @Test
    void outOfBoundsStreamRecoveryVariablesAreClampedWithAWarning_ST0_SE1() {
        ResilienceSettings s = configured(Map.of(), Map.of("STREAM_READINESS_TIMEOUT_MS", "999999999", "STREAM_IDLE_TIMEOUT_MS", "500",
                "SSE_HEARTBEAT_INTERVAL_MS", "-1", "STREAM_ATTEMPT_DEADLINE_MS", "1000", "STREAM_THROUGHPUT_WATCHDOG_ENABLED", "maybe"));

        assertThat(s.streamRecovery()).isEqualTo(new ResilienceSettings.StreamRecovery(1_800_000, 1_000, 0, 60_000, 1,
                ResilienceSettings.StreamRecovery.ThroughputWatchdog.DEFAULT));
        assertThat(warnings).containsExactly(
                "environment variable STREAM_READINESS_TIMEOUT_MS (streamRecovery.readinessTimeoutMs) = 999999999 is outside"
                        + " 1000..1800000; clamped to 1800000",
                "environment variable STREAM_IDLE_TIMEOUT_MS (streamRecovery.idleTimeoutMs) = 500 is neither 0 (off) nor inside"
                        + " 1000..3600000; clamped to 1000",
                "environment variable SSE_HEARTBEAT_INTERVAL_MS (streamRecovery.keepAliveIntervalMs) = -1 is neither 0 (off) nor inside"
                        + " 1000..300000; clamped to 0 (off)",
                "environment variable STREAM_ATTEMPT_DEADLINE_MS (streamRecovery.attemptDeadlineMs) = 1000 is outside"
                        + " 60000..86400000; clamped to 60000",
                "environment variable STREAM_THROUGHPUT_WATCHDOG_ENABLED (streamRecovery.throughputWatchdog.enabled) = \"maybe\" is"
                        + " not true or false; ignored, keeping false");
    }

    @Test
    void outOfBoundsThroughputWatchdogFileValuesAreClamped_ST3() {
        ResilienceSettings s = configured(yaml("streamRecovery.throughputWatchdog.windowMs", "1000",
                "streamRecovery.throughputWatchdog.minBytesPerSecond", "0", "streamRecovery.earlyEofRetries", "9"), Map.of());

        assertThat(s.streamRecovery().throughputWatchdog().windowMs()).isEqualTo(5_000);
        assertThat(s.streamRecovery().throughputWatchdog().minBytesPerSecond()).isEqualTo(1);
        assertThat(s.streamRecovery().earlyEofRetries()).isEqualTo(3);
        assertThat(warnings).containsExactly(
                "config file setting resilience.streamRecovery.throughputWatchdog.windowMs = 1000 is outside 5000..600000; clamped to 5000",
                "config file setting resilience.streamRecovery.throughputWatchdog.minBytesPerSecond = 0 is outside 1..100000; clamped to 1",
                "config file setting resilience.streamRecovery.earlyEofRetries = 9 is outside 0..3; clamped to 3");
    }

    // ------------------------------------------------------------------ clamping and ignoring (SE-1)

    @Test
    void outOfBoundsFileValuesAreClampedWithOneWarningEachInFileOrder_SE1() {
        ResilienceSettings s = configured(yaml(
                "modelLockout.maxCooldownMs", "9999999",
                "modelLockout.baseCooldownMs", "10",
                "circuitBreaker.local.resetTimeoutMs", "-5",
                "connectionCooldown.apikey.maxBackoffSteps", "99999999999999999999"), Map.of());

        assertThat(s.modelLockout().maxCooldownMs()).isEqualTo(3_600_000);
        assertThat(s.modelLockout().baseCooldownMs()).isEqualTo(5_000);
        assertThat(s.circuitBreaker().local().resetTimeoutMs()).isEqualTo(1_000);
        assertThat(s.connectionCooldown().apikey().maxBackoffSteps()).isEqualTo(32);
        assertThat(warnings).containsExactly(
                "config file setting resilience.modelLockout.maxCooldownMs = 9999999 is outside 5000..3600000; clamped to 3600000",
                "config file setting resilience.modelLockout.baseCooldownMs = 10 is outside 5000..600000; clamped to 5000",
                "config file setting resilience.circuitBreaker.local.resetTimeoutMs = -5 is outside 1000..86400000; clamped to 1000",
                "config file setting resilience.connectionCooldown.apikey.maxBackoffSteps = 99999999999999999999 is outside 0..32;"
                        + " clamped to 32");
    }

    @Test
    void outOfBoundsEnvironmentValuesAreClampedNamingTheVariable_SE1_PC4() {
        ResilienceSettings s = configured(Map.of(), Map.of("SLUICE_PROVIDER_BREAKER_OAUTH_COOLDOWN_MS", "10",
                "SLUICE_PROVIDER_COOLDOWN_MIN_MS", " 7200000 "));

        assertThat(s.providerCooldown().oauth().cooldownMs()).isEqualTo(1_000);
        assertThat(s.providerCooldown().minRetryCooldownMs()).isEqualTo(3_600_000);
        assertThat(s.providerCooldown().maxRetryCooldownMs()).as("raised to the clamped minimum").isEqualTo(3_600_000);
        assertThat(warnings).containsExactly(
                "environment variable SLUICE_PROVIDER_COOLDOWN_MIN_MS (providerCooldown.minRetryCooldownMs) = 7200000 is outside"
                        + " 0..3600000; clamped to 3600000",
                "environment variable SLUICE_PROVIDER_BREAKER_OAUTH_COOLDOWN_MS (providerCooldown.oauth.cooldownMs) = 10 is outside"
                        + " 1000..86400000; clamped to 1000",
                "resilience setting providerCooldown.maxRetryCooldownMs = 300000 must be ≥ minRetryCooldownMs (3600000);"
                        + " clamped to 3600000");
    }

    @Test
    void badTypesKeepTheLayerBelowWithAWarning_SE1() {
        ResilienceSettings s = configured(
                yaml("modelLockout.baseCooldownMs", "2 minutes", "modelLockout.maxCooldownMs", "600000",
                        "providerCooldown.enabled", "maybe", "connectionCooldown", "fast"),
                Map.of("SLUICE_PROVIDER_COOLDOWN_ENABLED", "sure", "SLUICE_CIRCUIT_BREAKER_OAUTH_RESET_MS", "1m",
                        "SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "1.5"));

        assertThat(s).isEqualTo(ResilienceSettings.of(ResilienceSettings.DEFAULTS.circuitBreaker(),
                ResilienceSettings.DEFAULTS.providerCooldown(), ResilienceSettings.DEFAULTS.connectionCooldown(),
                ResilienceSettings.DEFAULTS.streamStallCooldown(),
                new ResilienceSettings.ModelLockoutSettings(false, List.of(403, 404, 429, 502, 503, 504), 120_000, 600_000, 10, true)));
        assertThat(warnings).containsExactly(
                "config file setting resilience.modelLockout.baseCooldownMs = \"2 minutes\" is not an integer; ignored, keeping 120000",
                "config file setting resilience.providerCooldown.enabled = \"maybe\" is not true or false; ignored, keeping false",
                "config file setting resilience.connectionCooldown = \"fast\" is not an object; ignored",
                "environment variable SLUICE_CIRCUIT_BREAKER_OAUTH_RESET_MS (circuitBreaker.oauth.resetTimeoutMs) = \"1m\" is not an"
                        + " integer; ignored, keeping 60000",
                "environment variable SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD (circuitBreaker.apikey.failureThreshold) = \"1.5\" is"
                        + " not an integer; ignored, keeping 12",
                "environment variable SLUICE_PROVIDER_COOLDOWN_ENABLED (providerCooldown.enabled) = \"sure\" is not true or false;"
                        + " ignored, keeping false");
    }

    @Test
    void aBadEnvironmentValueKeepsTheConfigFileValue_SE1_SE2() {
        ResilienceSettings s = configured(yaml("circuitBreaker.local.failureThreshold", "4"),
                Map.of("SLUICE_CIRCUIT_BREAKER_LOCAL_THRESHOLD", "many"));

        assertThat(s.circuitBreaker().local().failureThreshold()).isEqualTo(4);
        assertThat(warnings).containsExactly("environment variable SLUICE_CIRCUIT_BREAKER_LOCAL_THRESHOLD (circuitBreaker.local.failureThreshold)"
                + " = \"many\" is not an integer; ignored, keeping 4");
    }

    @Test
    void booleanEnvironmentValuesAcceptTheUsualSpellings_PC1() {
        for (String on : List.of("true", "TRUE", "1", "on", "yes", " Yes ")) {
            assertThat(configured(Map.of(), Map.of("SLUICE_PROVIDER_COOLDOWN_ENABLED", on)).providerCooldown().enabled()).as(on).isTrue();
        }
        for (String off : List.of("false", "0", "off", "no")) {
            assertThat(configured(Map.of(), Map.of("SLUICE_PROVIDER_COOLDOWN_ENABLED", off, "SLUICE_MODEL_LOCKOUT_ENABLED", off)))
                    .as(off).isEqualTo(ResilienceSettings.DEFAULTS);
        }
        assertThat(configured(yaml("modelLockout.enabled", "true"), Map.of("SLUICE_MODEL_LOCKOUT_ENABLED", "off")).modelLockout().enabled())
                .as("env off beats file on").isFalse();
        assertThat(warnings).isEmpty();
    }

    @Test
    void unknownFileKeysAreIgnoredWithAWarning_SE1() {
        ResilienceSettings s = configured(yaml("streamWatchdog.enabled", "10", "modelLockout.cooldown", "5",
                "circuitBreaker.apikey.cooldownByKind", Map.of("rate_limit", "60000", "quota_exhausted", "3600000")), Map.of());

        assertThat(s.circuitBreaker().apikey().cooldownByKind()).isEqualTo(Map.of("quota_exhausted", 3_600_000L));
        assertThat(s.modelLockout()).isEqualTo(ResilienceSettings.DEFAULTS.modelLockout());
        assertThat(warnings).containsExactlyInAnyOrder(
                "config file setting resilience.streamWatchdog is not a resilience setting; ignored",
                "config file setting resilience.modelLockout.cooldown is not a resilience setting; ignored",
                "config file setting resilience.circuitBreaker.apikey.cooldownByKind.rate_limit: unknown failure kind 'rate_limit'; ignored");
    }

    @Test
    void fileErrorCodesDropOutOfRangeStatusesAndABadListKeepsTheDefault_ML2() {
        assertThat(configured(yaml("modelLockout.errorCodes", List.of("429", "600", "503")), Map.of()).modelLockout().errorCodes())
                .containsExactly(429, 503);
        assertThat(configured(yaml("modelLockout.errorCodes", List.of("429", "five hundred")), Map.of()).modelLockout().errorCodes())
                .containsExactly(403, 404, 429, 502, 503, 504);
        assertThat(configured(yaml("modelLockout.errorCodes", "429"), Map.of()).modelLockout().errorCodes())
                .containsExactly(403, 404, 429, 502, 503, 504);
        assertThat(warnings).containsExactly(
                "config file setting resilience.modelLockout.errorCodes contains 600, outside 400..599; that element is dropped",
                "config file setting resilience.modelLockout.errorCodes contains \"five hundred\", which is not an integer; ignored,"
                        + " keeping [403,404,429,502,503,504]",
                "config file setting resilience.modelLockout.errorCodes = \"429\" is not a list of integers; ignored, keeping"
                        + " [403,404,429,502,503,504]");
    }

    @Test
    void crossFieldRulesBrokenByTheFileAreClamped_SE1() {
        ResilienceSettings s = configured(yaml("circuitBreaker.oauth.degradationThreshold", "10",
                "modelLockout.baseCooldownMs", "600000", "connectionCooldown.oauth.baseCooldownMs", "3600000"), Map.of());

        assertThat(s.circuitBreaker().oauth().degradationThreshold()).isEqualTo(7);
        assertThat(s.modelLockout().maxCooldownMs()).isEqualTo(1_800_000);
        assertThat(s.connectionCooldown().oauth().maxCooldownMs()).isEqualTo(3_600_000);
        assertThat(warnings).containsExactly(
                "resilience setting circuitBreaker.oauth.degradationThreshold = 10 must be ≤ failureThreshold − 1 (7); clamped to 7",
                "resilience setting connectionCooldown.oauth.maxCooldownMs = 1800000 must be ≥ baseCooldownMs (3600000); clamped to 3600000");
    }

    @Test
    void anEnvironmentThresholdBelowTheFileDegradationLowersIt_CB2_SE1() {
        ResilienceSettings s = configured(Map.of(), Map.of("SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "5"));

        assertThat(s.circuitBreaker().apikey().failureThreshold()).isEqualTo(5);
        assertThat(s.circuitBreaker().apikey().degradationThreshold()).isEqualTo(4);
    }
}
