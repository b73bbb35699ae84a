package dev.sluice.runtime.settings;

import static dev.sluice.runtime.settings.Trees.at;
import static dev.sluice.runtime.settings.Trees.defaults;
import static dev.sluice.runtime.settings.Trees.json;
import static dev.sluice.runtime.settings.Trees.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The schema of the resilience tree: every leaf's type and bounds, the cross-field rules, unknown keys (SE-1, SE-4). */
class ResilienceSettingsCodecTest {

    /**
     * A valid tree whose cross-field partners leave every leaf free to reach its own bounds:
     * failure thresholds at 1000 with degradation 1, retry and cooldown ranges as wide as allowed.
     */
    private static ObjectNode wide() {
        ObjectNode t = defaults();
        for (String c : List.of("oauth", "apikey", "local")) {
            set(t, "circuitBreaker." + c + ".failureThreshold", 1000);
            set(t, "circuitBreaker." + c + ".degradationThreshold", 1);
        }
        set(t, "providerCooldown.minRetryCooldownMs", 0);
        set(t, "providerCooldown.maxRetryCooldownMs", 86_400_000);
        for (String c : List.of("oauth", "apikey")) {
            set(t, "connectionCooldown." + c + ".baseCooldownMs", 0);
            set(t, "connectionCooldown." + c + ".maxCooldownMs", 2_592_000_000L);
        }
        set(t, "modelLockout.baseCooldownMs", 5000);
        set(t, "modelLockout.maxCooldownMs", 3_600_000);
        return t;
    }

    /** path, lowest accepted, highest accepted, lower bound, upper bound. */
    static Stream<Arguments> integerLeaves() {
        List<Arguments> rows = new ArrayList<>();
        for (String c : List.of("oauth", "apikey", "local")) {
            String p = "circuitBreaker." + c + ".";
            // the leaf allows 1000, the cross-field rule (≤ failureThreshold − 1 ≤ 999) does not
            rows.add(Arguments.of(p + "degradationThreshold", 1L, 999L, 1L, 1000L));
            rows.add(Arguments.of(p + "failureThreshold", 1L, 1000L, 1L, 1000L));
            rows.add(Arguments.of(p + "resetTimeoutMs", 1000L, 86_400_000L, 1000L, 86_400_000L));
            rows.add(Arguments.of(p + "maxBackoffMultiplier", 1L, 1024L, 1L, 1024L));
            rows.add(Arguments.of(p + "backoffEscalationCount", 0L, 32L, 0L, 32L));
            rows.add(Arguments.of(p + "cooldownByKind.rate_limit_exceeded", 1000L, 86_400_000L, 1000L, 86_400_000L));
            rows.add(Arguments.of("providerCooldown." + c + ".failureThreshold", 1L, 10_000L, 1L, 10_000L));
            rows.add(Arguments.of("providerCooldown." + c + ".failureWindowMs", 1000L, 86_400_000L, 1000L, 86_400_000L));
            rows.add(Arguments.of("providerCooldown." + c + ".cooldownMs", 1000L, 86_400_000L, 1000L, 86_400_000L));
        }
        rows.add(Arguments.of("providerCooldown.minRetryCooldownMs", 0L, 3_600_000L, 0L, 3_600_000L));
        rows.add(Arguments.of("providerCooldown.maxRetryCooldownMs", 0L, 86_400_000L, 0L, 86_400_000L));
        for (String c : List.of("oauth", "apikey")) {
            String p = "connectionCooldown." + c + ".";
            rows.add(Arguments.of(p + "baseCooldownMs", 0L, 86_400_000L, 0L, 86_400_000L));
            rows.add(Arguments.of(p + "maxBackoffSteps", 0L, 32L, 0L, 32L));
            rows.add(Arguments.of(p + "maxCooldownMs", 1000L, 2_592_000_000L, 1000L, 2_592_000_000L));
        }
        rows.add(Arguments.of("modelLockout.baseCooldownMs", 5000L, 600_000L, 5000L, 600_000L));
        rows.add(Arguments.of("modelLockout.maxCooldownMs", 5000L, 3_600_000L, 5000L, 3_600_000L));
        rows.add(Arguments.of("modelLockout.maxBackoffSteps", 0L, 20L, 0L, 20L));
        rows.add(Arguments.of("streamRecovery.readinessTimeoutMs", 1000L, 1_800_000L, 1000L, 1_800_000L));
        rows.add(Arguments.of("streamRecovery.attemptDeadlineMs", 60_000L, 86_400_000L, 60_000L, 86_400_000L));
        rows.add(Arguments.of("streamRecovery.earlyEofRetries", 0L, 3L, 0L, 3L));
        rows.add(Arguments.of("streamRecovery.throughputWatchdog.windowMs", 5000L, 600_000L, 5000L, 600_000L));
        rows.add(Arguments.of("streamRecovery.throughputWatchdog.warmupMs", 0L, 600_000L, 0L, 600_000L));
        rows.add(Arguments.of("streamRecovery.throughputWatchdog.minBytesPerSecond", 1L, 100_000L, 1L, 100_000L));
        rows.add(Arguments.of("streamRecovery.throughputWatchdog.minMeasurableBytes", 0L, 1_048_576L, 0L, 1_048_576L));
        return rows.stream();
    }

    /** path, lowest value that is not off, highest value. */
    static Stream<Arguments> offOrIntegerLeaves() {
        return Stream.of(Arguments.of("streamRecovery.idleTimeoutMs", 1000L, 3_600_000L),
                Arguments.of("streamRecovery.keepAliveIntervalMs", 1000L, 300_000L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("offOrIntegerLeaves")
    void timersThatMayBeOffAcceptZeroAndTheirBoundsAndNothingBetween_ST0_SE4(String path, long min, long max) {
        for (long ok : new long[] {0, min, max}) {
            assertThat(at(ResilienceSettingsCodec.toJson(ResilienceSettingsCodec.fromJson(set(defaults(), path, ok))), path).longValue())
                    .isEqualTo(ok);
        }
        for (long bad : new long[] {-1, 1, min - 1, max + 1}) {
            assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), path, bad)))
                    .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo(path))
                    .hasMessage("'" + path + "' must be 0 (off) or between " + min + " and " + max + ", got " + bad + ".");
        }
        for (Object bad : Arrays.asList("15000", 1.5, false, null)) {
            assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), path, bad)))
                    .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo(path))
                    .hasMessageStartingWith("'" + path + "' must be 0 (off) or an integer between " + min + " and " + max + ", got ");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("integerLeaves")
    void everyIntegerLeafAcceptsItsBoundsAndRefusesBeyondThemNamingThePath_SE1(String path, long lowest, long highest, long min,
            long max) {
        assertThat(at(ResilienceSettingsCodec.toJson(ResilienceSettingsCodec.fromJson(set(wide(), path, lowest))), path).longValue())
                .isEqualTo(lowest);
        assertThat(at(ResilienceSettingsCodec.toJson(ResilienceSettingsCodec.fromJson(set(wide(), path, highest))), path).longValue())
                .isEqualTo(highest);

        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(wide(), path, min - 1)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo(path))
                .hasMessage("'" + path + "' must be between " + min + " and " + max + ", got " + (min - 1) + ".");
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(wide(), path, max + 1)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo(path))
                .hasMessage("'" + path + "' must be between " + min + " and " + max + ", got " + (max + 1) + ".");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("integerLeaves")
    void everyIntegerLeafRefusesTextFractionsAndNull_SE1(String path, long lowest, long highest, long min, long max) {
        for (Object bad : Arrays.asList("5000", 1.5, true, null, List.of(1))) {
            assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(wide(), path, bad)))
                    .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo(path))
                    .hasMessageStartingWith("'" + path + "' must be an integer between " + min + " and " + max + ", got ");
        }
    }

    @Test
    void hugeIntegersAreOutOfBoundsNotOverflowed_SE1() {
        ObjectNode t = wide();
        ((ObjectNode) t.get("modelLockout")).set("maxCooldownMs", json("{'v': 99999999999999999999999}").get("v"));

        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(t))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.maxCooldownMs"))
                .hasMessage("'modelLockout.maxCooldownMs' must be between 5000 and 3600000, got 99999999999999999999999.");
    }

    @Test
    void booleanLeavesTakeOnlyJsonBooleans_SE1() {
        for (String path : List.of("providerCooldown.enabled", "streamStallCooldown.enabled", "modelLockout.enabled",
                "modelLockout.useExponentialBackoff", "streamRecovery.throughputWatchdog.enabled")) {
            assertThat(at(ResilienceSettingsCodec.toJson(ResilienceSettingsCodec.fromJson(set(defaults(), path, true))), path).booleanValue())
                    .isTrue();
            for (Object bad : Arrays.asList("true", 1, null)) {
                assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), path, bad)))
                        .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo(path))
                        .hasMessageStartingWith("'" + path + "' must be true or false, got ");
            }
        }
    }

    // ------------------------------------------------------------------ errorCodes (ML-2)

    @Test
    void errorCodesAreStatusesFrom400To599WithDuplicatesRemoved_ML2() {
        ResilienceSettings s = ResilienceSettingsCodec.fromJson(set(defaults(), "modelLockout.errorCodes", List.of(429, 400, 599, 429, 400)));

        assertThat(s.modelLockout().errorCodes()).containsExactly(429, 400, 599);
        assertThat(ResilienceSettingsCodec.fromJson(set(defaults(), "modelLockout.errorCodes", List.of())).modelLockout().errorCodes())
                .isEmpty();
    }

    @Test
    void errorCodesOutsideTheRangeOrNotIntegersAreRefused_ML2() {
        for (Object bad : List.of(List.of(429, 399), List.of(600), List.of(429, "503"), List.of(429.5), 429, "429")) {
            assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "modelLockout.errorCodes", bad)))
                    .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.errorCodes"))
                    .hasMessageStartingWith("'modelLockout.errorCodes' must be a list of integers between 400 and 599");
        }
    }

    // ------------------------------------------------------------------ cooldownByKind (CB-4)

    @Test
    void cooldownByKindTakesFailureReasonWireNames_CB4() {
        ObjectNode t = defaults();
        set(t, "circuitBreaker.apikey.cooldownByKind.rate_limit_exceeded", 60_000);
        set(t, "circuitBreaker.apikey.cooldownByKind.quota_exhausted", 3_600_000);

        assertThat(ResilienceSettingsCodec.fromJson(t).circuitBreaker().apikey().cooldownByKind())
                .isEqualTo(Map.of("rate_limit_exceeded", 60_000L, "quota_exhausted", 3_600_000L));
        for (FailureReason r : FailureReason.values()) {
            assertThat(ResilienceSettingsCodec.fromJson(set(defaults(), "circuitBreaker.oauth.cooldownByKind." + r.wireName(), 1000))
                    .circuitBreaker().oauth().cooldownByKind()).containsEntry(r.wireName(), 1000L);
        }
    }

    @Test
    void cooldownByKindRefusesUnknownKindsNamingThem_CB4() {
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "circuitBreaker.local.cooldownByKind.rate_limit", 60_000)))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("circuitBreaker.local.cooldownByKind.rate_limit"))
                .hasMessageStartingWith("'circuitBreaker.local.cooldownByKind.rate_limit': unknown failure kind 'rate_limit' (known: ")
                .hasMessageContaining("rate_limit_exceeded");
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "circuitBreaker.local.cooldownByKind", List.of())))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("circuitBreaker.local.cooldownByKind"));
    }

    // ------------------------------------------------------------------ cross-field rules

    @Test
    void degradationThresholdMustStayBelowTheFailureThreshold_CB2() {
        ObjectNode t = set(defaults(), "circuitBreaker.apikey.degradationThreshold", 12);

        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(t))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("circuitBreaker.apikey.degradationThreshold"))
                .hasMessage("'circuitBreaker.apikey.degradationThreshold' must be ≤ failureThreshold − 1 (11), got 12.");
        assertThat(ResilienceSettingsCodec.fromJson(set(defaults(), "circuitBreaker.apikey.degradationThreshold", 11))
                .circuitBreaker().apikey().degradationThreshold()).isEqualTo(11);
    }

    @Test
    void aFailureThresholdOfOneLeavesDegradationOne_CB2() {
        ObjectNode t = set(defaults(), "circuitBreaker.local.failureThreshold", 1);

        assertThat(ResilienceSettingsCodec.fromJson(t).circuitBreaker().local().degradationThreshold()).isEqualTo(1);
        assertThat(ResilienceSettingsCodec.fromJson(t).circuitBreaker().local().failureThreshold()).isEqualTo(1);
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(t, "circuitBreaker.local.degradationThreshold", 2)))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("circuitBreaker.local.degradationThreshold"));
    }

    @Test
    void maxRetryCooldownMayNotFallBelowTheMinimum_PC3() {
        ObjectNode t = set(defaults(), "providerCooldown.maxRetryCooldownMs", 4_999);

        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(t))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("providerCooldown.maxRetryCooldownMs"))
                .hasMessage("'providerCooldown.maxRetryCooldownMs' must be ≥ minRetryCooldownMs (5000), got 4999.");
        assertThat(ResilienceSettingsCodec.fromJson(set(defaults(), "providerCooldown.maxRetryCooldownMs", 5_000))
                .providerCooldown().maxRetryCooldownMs()).isEqualTo(5_000);
    }

    @Test
    void connectionMaxCooldownMayNotFallBelowTheBase_CC2() {
        for (String c : List.of("oauth", "apikey")) {
            ObjectNode t = set(defaults(), "connectionCooldown." + c + ".baseCooldownMs", 60_000);
            set(t, "connectionCooldown." + c + ".maxCooldownMs", 59_999);

            assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(t))
                    .isInstanceOfSatisfying(SettingsException.class,
                            e -> assertThat(e.path()).isEqualTo("connectionCooldown." + c + ".maxCooldownMs"))
                    .hasMessage("'connectionCooldown." + c + ".maxCooldownMs' must be ≥ baseCooldownMs (60000), got 59999.");
        }
    }

    @Test
    void modelLockoutMaxCooldownMayNotFallBelowTheBase_ML2() {
        ObjectNode t = set(defaults(), "modelLockout.maxCooldownMs", 119_999);

        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(t))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.maxCooldownMs"))
                .hasMessage("'modelLockout.maxCooldownMs' must be ≥ baseCooldownMs (120000), got 119999.");
        assertThat(ResilienceSettingsCodec.fromJson(set(defaults(), "modelLockout.maxCooldownMs", 120_000)).modelLockout().maxCooldownMs())
                .isEqualTo(120_000);
    }

    // ------------------------------------------------------------------ shape

    @Test
    void unknownKeysAreRefusedNamingTheirPath_SE4() {
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "streamWatchdog.enabled", 10)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("streamWatchdog"))
                .hasMessage("'streamWatchdog' is not a resilience setting (known: circuitBreaker, providerCooldown, connectionCooldown,"
                        + " streamStallCooldown, serviceUnavailableCooldown, modelLockout, comboCooldownWait, requestQueue, quotaShareConcurrencyLimit,"
                        + " streamRecovery).");
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "streamRecovery.throughputWatchdog.minRate", 10)))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("streamRecovery.throughputWatchdog.minRate"))
                .hasMessage("'streamRecovery.throughputWatchdog.minRate' is not a resilience setting (known in"
                        + " 'streamRecovery.throughputWatchdog': enabled, windowMs, warmupMs, minBytesPerSecond, minMeasurableBytes).");
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "modelLockout.cooldownMs", 10)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.cooldownMs"))
                .hasMessageStartingWith("'modelLockout.cooldownMs' is not a resilience setting (known in 'modelLockout': enabled, errorCodes,");
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "circuitBreaker.gemini.failureThreshold", 3)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("circuitBreaker.gemini"));
    }

    @Test
    void aScalarWhereAnObjectBelongsIsRefused_SE4() {
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(set(defaults(), "connectionCooldown.apikey", 3000)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("connectionCooldown.apikey"))
                .hasMessage("'connectionCooldown.apikey' must be an object, got 3000.");
    }

    @Test
    void aMissingKeyIsRefused_SE4() {
        ObjectNode t = defaults();
        ((ObjectNode) t.get("modelLockout")).remove("maxBackoffSteps");

        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(t))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.maxBackoffSteps"))
                .hasMessage("'modelLockout.maxBackoffSteps' is required.");
        assertThatThrownBy(() -> ResilienceSettingsCodec.fromJson(json("[]")))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isNull());
    }

    @Test
    void aTreeRoundTripsThroughJson_SE4() {
        ObjectNode t = wide();
        set(t, "circuitBreaker.oauth.cooldownByKind.quota_exhausted", 3_600_000);
        set(t, "modelLockout.errorCodes", List.of(429));
        set(t, "streamStallCooldown.enabled", true);
        set(t, "streamRecovery.idleTimeoutMs", 0);
        set(t, "streamRecovery.attemptDeadlineMs", 86_400_000);
        set(t, "streamRecovery.throughputWatchdog.enabled", true);
        set(t, "streamRecovery.throughputWatchdog.minMeasurableBytes", 1_048_576);
        ResilienceSettings s = ResilienceSettingsCodec.fromJson(t);

        assertThat(ResilienceSettingsCodec.toJson(s)).isEqualTo(t);
        assertThat(ResilienceSettingsCodec.fromJson(ResilienceSettingsCodec.toJson(s))).isEqualTo(s);
        assertThat(s.connectionCooldown().oauth().maxCooldownMs()).isEqualTo(2_592_000_000L);
        assertThat(s.streamRecovery()).isEqualTo(new ResilienceSettings.StreamRecovery(80_000, 0, 15_000, 86_400_000, 1,
                new ResilienceSettings.StreamRecovery.ThroughputWatchdog(true, 60_000, 30_000, 8, 1_048_576)));
    }

    @Test
    void streamRecoveryHasNoCrossFieldRuleSoTheShortestDeadlineIsAcceptedWithTheDefaultReadiness_ST0() {
        ResilienceSettings s = ResilienceSettingsCodec.fromJson(set(defaults(), "streamRecovery.attemptDeadlineMs", 60_000));

        assertThat(s.streamRecovery().attemptDeadlineMs()).isEqualTo(60_000);
        assertThat(s.streamRecovery().readinessTimeoutMs()).isEqualTo(80_000);
    }
}
