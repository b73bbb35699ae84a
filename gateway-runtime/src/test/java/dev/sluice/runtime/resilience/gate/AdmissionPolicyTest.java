package dev.sluice.runtime.resilience.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.RequestQueue;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/** What limits a request on a connection (SPEC QC-1, QC-2, RQ-2, RQ-3, RQ-7, RQ-8). */
class AdmissionPolicyTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);

    private AdmissionPolicy policy(Boolean autoEnableEnv) {
        return new AdmissionPolicy(settings::get, autoEnableEnv, json -> {
            try {
                return MAPPER.readValue(json, new TypeReference<Map<String, Object>>() { });
            } catch (Exception e) {
                throw new IllegalArgumentException(e);
            }
        }, java.util.Set.of("gemini"));
    }

    private static Connection conn(ProviderClass type, Integer maxConcurrent, String overrides, boolean protection) {
        return new Connection("c1", 1, "glm", "n", type, "k", null, null, 1, true, maxConcurrent, overrides, protection, false, null,
                null, null, ConnectionState.ACTIVE, 0, 0);
    }

    private void queue(long maxWaitMs, long executionMaxWaitMs, int depth, boolean autoEnable) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        settings.set(new ResilienceSettings(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(),
                d.modelLockout(), d.comboCooldownWait(), new RequestQueue(maxWaitMs, executionMaxWaitMs, depth, autoEnable),
                d.quotaShareConcurrencyLimit(), d.streamRecovery(),
                d.serviceUnavailableCooldown()));
    }

    @ParameterizedTest(name = "maxConcurrent={0} override={1} → {2}")
    @CsvSource({", , 0", "3, , 3", ", 2, 2", "3, 2, 2", "2, 3, 2", "2, 0, 2", "0, 0, 0"})
    void theConnectionCapIsTheStricterOfTheTwo_QC1(Integer maxConcurrent, Integer override, int expected) {
        String json = override == null ? null : "{\"maxConcurrent\":" + override + "}";
        assertThat(policy(null).limits(conn(ProviderClass.APIKEY, maxConcurrent, json, false), "glm-5").connectionCap()).isEqualTo(expected);
    }

    @Test
    void theModelCapIsKeyedByTheUpstreamModel_QC2() {
        Connection c = conn(ProviderClass.OAUTH, null, "{\"modelConcurrency\":{\"glm-5\":1,\"glm-4.7\":3}}", false);
        assertThat(policy(null).limits(c, "glm-5").modelCap()).isEqualTo(1);
        assertThat(policy(null).limits(c, "glm-4.7").modelCap()).isEqualTo(3);
        assertThat(policy(null).limits(c, "zai/glm-5").modelCap()).isZero();
    }

    @Test
    void queueTimeComesFromTheConnectionThenTheSettingClampedTo24h_RQ3() {
        queue(20_000, 600_000, 7, true);
        assertThat(policy(null).limits(conn(ProviderClass.APIKEY, null, null, false), "m").maxWaitMs()).isEqualTo(20_000);
        assertThat(policy(null).limits(conn(ProviderClass.APIKEY, null, "{\"maxWaitMs\":5000}", false), "m").maxWaitMs()).isEqualTo(5_000);
        assertThat(policy(null).limits(conn(ProviderClass.APIKEY, null, "{\"maxWaitMs\":0}", false), "m").maxWaitMs()).isEqualTo(20_000);
        assertThat(policy(null).limits(conn(ProviderClass.APIKEY, null, "{\"maxWaitMs\":90000000}", false), "m").maxWaitMs())
                .isEqualTo(86_400_000);
        assertThat(policy(null).limits(conn(ProviderClass.APIKEY, null, null, false), "m").maxQueueDepth()).isEqualTo(7);
    }

    @Test
    void theExecutionBoundIsRaisedToTheAttemptsOwnStartTimeout_RQ2() {
        assertThat(policy(null).executionMaxWaitMs(conn(ProviderClass.APIKEY, null, null, false), 30_000)).isEqualTo(600_000);
        assertThat(policy(null).executionMaxWaitMs(conn(ProviderClass.APIKEY, null, "{\"executionMaxWaitMs\":1000}", false), 30_000))
                .isEqualTo(30_000);
        assertThat(policy(null).executionMaxWaitMs(conn(ProviderClass.APIKEY, null, "{\"executionMaxWaitMs\":90000}", false), 30_000))
                .isEqualTo(90_000);
    }

    @Test
    void protectionIsExplicitOrAutoForApiKeysAndTheEnvironmentBeatsTheSetting_RQ7_RQ8() {
        Connection apiKey = conn(ProviderClass.APIKEY, null, null, false);
        Connection oauth = conn(ProviderClass.OAUTH, null, null, false);
        Connection explicitOauth = conn(ProviderClass.OAUTH, null, null, true);

        assertThat(policy(null).protects(apiKey)).isTrue();
        assertThat(policy(null).protects(oauth)).isFalse();
        assertThat(policy(null).protects(explicitOauth)).isTrue();
        queue(30_000, 600_000, 0, false);
        assertThat(policy(null).protects(apiKey)).isFalse();
        assertThat(policy(Boolean.TRUE).protects(apiKey)).as("env on beats stored off").isTrue();
        queue(30_000, 600_000, 0, true);
        assertThat(policy(Boolean.FALSE).protects(apiKey)).as("env off beats stored on").isFalse();
        // RQ-8: there is no per-connection opt-out, and false is the same as unset
        assertThat(policy(Boolean.FALSE).protects(explicitOauth)).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"true, true", "1, true", "ON, true", " on , true", "false, false", "0, false", "off, false"})
    void theAutoEnableVariableReadsTheUsualSpellings_RQ7(String value, boolean expected) {
        assertThat(AdmissionPolicy.autoEnableFromEnv(value)).isEqualTo(expected);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "yes please", "2"})
    void anUnsetOrUnreadableAutoEnableVariableIsNoOverride_RQ7(String value) {
        assertThat(AdmissionPolicy.autoEnableFromEnv(value)).isNull();
    }

    @ParameterizedTest(name = "rpm={0} minTime={1} → spacing {2}")
    @CsvSource({"0, 0, 0", "120, 0, 500", "7, 0, 8572", "0, 800, 800", "120, 800, 800", "600, 50, 100"})
    void configuredPacingIsTheLongerOfRpmAndMinTime_RQ10(long rpm, long minTime, long spacing) {
        Connection c = conn(ProviderClass.APIKEY, null, "{\"requestsPerMinute\":" + rpm + ",\"minTimeBetweenRequestsMs\":" + minTime + "}", false);
        assertThat(policy(null).limits(c, "m").minSpacingMs()).isEqualTo(spacing);
    }
}
