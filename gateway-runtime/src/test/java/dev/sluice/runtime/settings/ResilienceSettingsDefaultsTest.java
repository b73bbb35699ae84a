package dev.sluice.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.ResilienceSettings.CooldownProfile;
import dev.sluice.runtime.resilience.ResilienceSettings.WindowProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every default of the resilience tree has the value the spec names (SE-3). */
class ResilienceSettingsDefaultsTest {

    private static final ResilienceSettings D = ResilienceSettings.DEFAULTS;

    @Test
    void breakerThresholdsAndResetTimeoutsByClass_CB2() {
        assertThat(D.circuitBreaker().oauth().degradationThreshold()).isEqualTo(5);
        assertThat(D.circuitBreaker().oauth().failureThreshold()).isEqualTo(8);
        assertThat(D.circuitBreaker().oauth().resetTimeoutMs()).isEqualTo(60_000);
        assertThat(D.circuitBreaker().apikey().degradationThreshold()).isEqualTo(7);
        assertThat(D.circuitBreaker().apikey().failureThreshold()).isEqualTo(12);
        assertThat(D.circuitBreaker().apikey().resetTimeoutMs()).isEqualTo(30_000);
        // local: degradation derived below the open threshold
        assertThat(D.circuitBreaker().local().degradationThreshold()).isEqualTo(1);
        assertThat(D.circuitBreaker().local().failureThreshold()).isEqualTo(2);
        assertThat(D.circuitBreaker().local().resetTimeoutMs()).isEqualTo(15_000);
    }

    @Test
    void breakerBackoffByClass_CB4() {
        assertThat(D.circuitBreaker().apikey()).isEqualTo(new BreakerProfile(7, 12, 30_000, 4, 3, Map.of()));
        assertThat(D.circuitBreaker().oauth()).isEqualTo(new BreakerProfile(5, 8, 60_000, 8, 2, Map.of()));
        assertThat(D.circuitBreaker().local()).isEqualTo(new BreakerProfile(1, 2, 15_000, 16, 3, Map.of()));
        assertThat(D.circuitBreaker().apikey().backoffEscalationCount()).isEqualTo(3);
        assertThat(D.circuitBreaker().apikey().maxBackoffMultiplier()).isEqualTo(4);
        assertThat(D.circuitBreaker().oauth().backoffEscalationCount()).isEqualTo(2);
        assertThat(D.circuitBreaker().oauth().maxBackoffMultiplier()).isEqualTo(8);
        assertThat(D.circuitBreaker().local().backoffEscalationCount()).isEqualTo(3);
        assertThat(D.circuitBreaker().local().maxBackoffMultiplier()).isEqualTo(16);
        assertThat(D.circuitBreaker().oauth().cooldownByKind()).isEmpty();
        assertThat(D.circuitBreaker().apikey().cooldownByKind()).isEmpty();
        assertThat(D.circuitBreaker().local().cooldownByKind()).isEmpty();
    }

    @Test
    void providerCooldownIsOffWithTheWindowProfiles_PC1_PC2_PC3() {
        assertThat(D.providerCooldown().enabled()).isFalse();
        assertThat(D.providerCooldown().oauth()).isEqualTo(new WindowProfile(10, 15 * 60_000, 5 * 60_000));
        assertThat(D.providerCooldown().apikey()).isEqualTo(new WindowProfile(15, 30 * 60_000, 10 * 60_000));
        // OmniRoute's local profile and connection-level retry range (§3.11 of the notes)
        assertThat(D.providerCooldown().local()).isEqualTo(new WindowProfile(2, 5 * 60_000, 60_000));
        assertThat(D.providerCooldown().minRetryCooldownMs()).isEqualTo(5_000);
        assertThat(D.providerCooldown().maxRetryCooldownMs()).isEqualTo(300_000);
    }

    @Test
    void connectionCooldownBasesStepsAndCap_CC2() {
        assertThat(D.connectionCooldown().oauth()).isEqualTo(new CooldownProfile(5_000, 8, 30 * 60_000));
        assertThat(D.connectionCooldown().apikey()).isEqualTo(new CooldownProfile(3_000, 5, 30 * 60_000));
    }

    @Test
    void streamStallsDoNotCoolByDefault_CC5() {
        assertThat(D.streamStallCooldown().enabled()).isFalse();
    }

    @Test
    void anUpstream503DoesNotCoolTheConnectionByDefault_issue32() {
        assertThat(D.serviceUnavailableCooldown().enabled()).isFalse();
        assertThat(ResilienceSettings.ServiceUnavailableCooldown.DEFAULT.enabled()).isFalse();
    }

    @Test
    void modelLockoutDefaults_ML2() {
        assertThat(D.modelLockout().enabled()).isFalse();
        assertThat(D.modelLockout().errorCodes()).containsExactly(403, 404, 429, 502, 503, 504);
        assertThat(D.modelLockout().baseCooldownMs()).isEqualTo(120_000);
        assertThat(D.modelLockout().maxCooldownMs()).isEqualTo(1_800_000);
        assertThat(D.modelLockout().maxBackoffSteps()).isEqualTo(10);
        assertThat(D.modelLockout().useExponentialBackoff()).isTrue();
    }

    @Test
    void theDefaultTreeAsJsonHasEveryKeyAndValue_SE3_SE4() throws Exception {
        JsonNode expected = new ObjectMapper().readTree("""
                {
                  "circuitBreaker": {
                    "oauth":  {"degradationThreshold": 5, "failureThreshold": 8,  "resetTimeoutMs": 60000,
                               "maxBackoffMultiplier": 8,  "backoffEscalationCount": 2, "cooldownByKind": {}},
                    "apikey": {"degradationThreshold": 7, "failureThreshold": 12, "resetTimeoutMs": 30000,
                               "maxBackoffMultiplier": 4,  "backoffEscalationCount": 3, "cooldownByKind": {}},
                    "local":  {"degradationThreshold": 1, "failureThreshold": 2,  "resetTimeoutMs": 15000,
                               "maxBackoffMultiplier": 16, "backoffEscalationCount": 3, "cooldownByKind": {}}
                  },
                  "providerCooldown": {
                    "enabled": false, "minRetryCooldownMs": 5000, "maxRetryCooldownMs": 300000,
                    "oauth":  {"failureThreshold": 10, "failureWindowMs": 900000,  "cooldownMs": 300000},
                    "apikey": {"failureThreshold": 15, "failureWindowMs": 1800000, "cooldownMs": 600000},
                    "local":  {"failureThreshold": 2,  "failureWindowMs": 300000,  "cooldownMs": 60000}
                  },
                  "connectionCooldown": {
                    "oauth":  {"baseCooldownMs": 5000, "maxBackoffSteps": 8, "maxCooldownMs": 1800000},
                    "apikey": {"baseCooldownMs": 3000, "maxBackoffSteps": 5, "maxCooldownMs": 1800000}
                  },
                  "streamStallCooldown": {"enabled": false},
                  "serviceUnavailableCooldown": {"enabled": false},
                  "modelLockout": {
                    "enabled": false, "errorCodes": [403, 404, 429, 502, 503, 504], "baseCooldownMs": 120000,
                    "maxCooldownMs": 1800000, "maxBackoffSteps": 10, "useExponentialBackoff": true
                  },
                  "comboCooldownWait": {"enabled": true, "maxWaitMs": 90000, "maxAttempts": 5, "budgetMs": 300000},
                  "requestQueue": {"maxWaitMs": 30000, "executionMaxWaitMs": 600000, "maxQueueDepth": 0,
                    "autoEnableApiKeyProviders": true},
                  "quotaShareConcurrencyLimit": {"enabled": true},
                  "streamRecovery": {"readinessTimeoutMs": 80000, "idleTimeoutMs": 180000, "keepAliveIntervalMs": 15000,
                    "attemptDeadlineMs": 1800000, "earlyEofRetries": 1,
                    "throughputWatchdog": {"enabled": false, "windowMs": 60000, "warmupMs": 30000, "minBytesPerSecond": 8,
                      "minMeasurableBytes": 256}}
                }
                """);

        assertThat(ResilienceSettingsCodec.toJson(D)).isEqualTo(expected);
        assertThat(List.copyOf(ResilienceSettingsCodec.toJson(D).properties()).stream().map(Map.Entry::getKey))
                .containsExactly("circuitBreaker", "providerCooldown", "connectionCooldown", "streamStallCooldown",
                        "serviceUnavailableCooldown", "modelLockout",
                        "comboCooldownWait", "requestQueue", "quotaShareConcurrencyLimit", "streamRecovery");
    }

    @Test
    void streamRecoveryTimerDefaults_ST0_ST1() {
        // 80 s readiness as OmniRoute; 3 min of silence after output started is a dead stream (reasoning frames restart it)
        assertThat(D.streamRecovery().readinessTimeoutMs()).isEqualTo(80_000);
        assertThat(D.streamRecovery().idleTimeoutMs()).isEqualTo(180_000);
        assertThat(D.streamRecovery().keepAliveIntervalMs()).isEqualTo(15_000);
        assertThat(D.streamRecovery().attemptDeadlineMs()).isEqualTo(30 * 60_000);
        assertThat(D.streamRecovery().earlyEofRetries()).isEqualTo(1);
        assertThat(D.streamRecovery()).isEqualTo(ResilienceSettings.StreamRecovery.DEFAULT);
    }

    @Test
    void throughputWatchdogIsOffWithItsWindowDefaults_ST2_ST3() {
        ResilienceSettings.StreamRecovery.ThroughputWatchdog w = D.streamRecovery().throughputWatchdog();
        assertThat(w.enabled()).isFalse();
        assertThat(w.windowMs()).isEqualTo(60_000);
        assertThat(w.warmupMs()).isEqualTo(30_000);
        assertThat(w.minBytesPerSecond()).isEqualTo(8);
        assertThat(w.minMeasurableBytes()).isEqualTo(256);
        assertThat(w).isEqualTo(ResilienceSettings.StreamRecovery.ThroughputWatchdog.DEFAULT);
    }

    @Test
    void theFiveSectionFactoryKeepsTheDefaultsOfTheLaterSections_SE3() {
        ResilienceSettings s = ResilienceSettings.of(D.circuitBreaker(), D.providerCooldown(), D.connectionCooldown(),
                D.streamStallCooldown(), D.modelLockout());

        assertThat(s).isEqualTo(D);
        assertThat(s.streamRecovery()).isSameAs(ResilienceSettings.StreamRecovery.DEFAULT);
        assertThat(s.serviceUnavailableCooldown()).isSameAs(ResilienceSettings.ServiceUnavailableCooldown.DEFAULT);
    }

    @Test
    void requestQueueAndQuotaShareDefaults_RQ1_RQ2_RQ5_RQ7_QC3() {
        assertThat(D.requestQueue().maxWaitMs()).isEqualTo(30_000);
        assertThat(D.requestQueue().executionMaxWaitMs()).isEqualTo(600_000);
        assertThat(D.requestQueue().maxQueueDepth()).isZero();
        assertThat(D.requestQueue().autoEnableApiKeyProviders()).isTrue();
        assertThat(D.quotaShareConcurrencyLimit().enabled()).isTrue();
    }

    @Test
    void requestQueueBoundsClampOneMsTo24hAndDepthTo100000_RQ3_RQ5() {
        com.fasterxml.jackson.databind.node.ObjectNode tree = ResilienceSettingsCodec.toJson(D);
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("requestQueue")).put("maxWaitMs", 0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(tree))
                .isInstanceOf(SettingsException.class).extracting(e -> ((SettingsException) e).path()).isEqualTo("requestQueue.maxWaitMs");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("requestQueue")).put("maxWaitMs", 86_400_000).put("executionMaxWaitMs",
                86_400_001);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(tree))
                .isInstanceOf(SettingsException.class).extracting(e -> ((SettingsException) e).path())
                .isEqualTo("requestQueue.executionMaxWaitMs");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("requestQueue")).put("executionMaxWaitMs", 1).put("maxQueueDepth", 100_001);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(tree))
                .isInstanceOf(SettingsException.class).extracting(e -> ((SettingsException) e).path()).isEqualTo("requestQueue.maxQueueDepth");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("requestQueue")).put("maxQueueDepth", 100_000);
        assertThat(ResilienceSettingsCodec.fromJson(tree).requestQueue())
                .isEqualTo(new ResilienceSettings.RequestQueue(86_400_000, 1, 100_000, true));
    }

    @Test
    void theDefaultsPassTheirOwnValidation_SE1() {
        assertThat(ResilienceSettingsCodec.fromJson(ResilienceSettingsCodec.toJson(D))).isEqualTo(D);
    }

    @Test
    void comboCooldownWaitDefaults_CO3() {
        assertThat(D.comboCooldownWait().enabled()).isTrue();
        assertThat(D.comboCooldownWait().maxWaitMs()).isEqualTo(90_000);
        assertThat(D.comboCooldownWait().maxAttempts()).isEqualTo(5);
        assertThat(D.comboCooldownWait().budgetMs()).isEqualTo(300_000);
    }

    @Test
    void comboCooldownWaitBoundsAndBudgetRule_CO3_SE4() {
        ResilienceSettings s = ResilienceSettingsCodec.fromJson(ResilienceSettingsCodec.toJson(D));
        assertThat(s).isEqualTo(D);
        com.fasterxml.jackson.databind.node.ObjectNode tree = ResilienceSettingsCodec.toJson(D);
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("comboCooldownWait")).put("budgetMs", 1_000);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(tree))
                .isInstanceOf(SettingsException.class).extracting(e -> ((SettingsException) e).path()).isEqualTo("comboCooldownWait.budgetMs");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("comboCooldownWait")).put("budgetMs", 300_000).put("maxWaitMs", 300_001);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(tree))
                .isInstanceOf(SettingsException.class).extracting(e -> ((SettingsException) e).path()).isEqualTo("comboCooldownWait.maxWaitMs");
    }
}
