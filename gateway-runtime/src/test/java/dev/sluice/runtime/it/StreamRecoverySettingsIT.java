package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code streamRecovery} section of {@code /api/resilience} through a real server (SPEC §15 ST-0, ST-2; §18 SE-4). */
class StreamRecoverySettingsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    private JsonNode admin(String method, String body) {
        HttpResponse<String> r = sluice.send(method, "/api/resilience", ADMIN_KEY, body);
        assertThat(r.statusCode()).as(method + ": " + r.body()).isEqualTo(200);
        return read(r.body());
    }

    private JsonNode refused(String body) {
        HttpResponse<String> r = sluice.send("PATCH", "/api/resilience", ADMIN_KEY, body);
        assertThat(r.statusCode()).as(body + ": " + r.body()).isEqualTo(400);
        return read(r.body()).get("error");
    }

    @Test
    void theTreeShowsTheStreamRecoveryDefaults_ST0_SE4() {
        JsonNode s = admin("GET", null).get("streamRecovery");

        assertThat(s.get("readinessTimeoutMs").asLong()).isEqualTo(80_000);
        assertThat(s.get("idleTimeoutMs").asLong()).isEqualTo(180_000);
        assertThat(s.get("keepAliveIntervalMs").asLong()).isEqualTo(15_000);
        assertThat(s.get("attemptDeadlineMs").asLong()).isEqualTo(1_800_000);
        assertThat(s.get("earlyEofRetries").asInt()).isEqualTo(1);
        assertThat(s.at("/throughputWatchdog/enabled").asBoolean()).isFalse();
        assertThat(s.at("/throughputWatchdog/windowMs").asLong()).isEqualTo(60_000);
        assertThat(s.at("/throughputWatchdog/warmupMs").asLong()).isEqualTo(30_000);
        assertThat(s.at("/throughputWatchdog/minBytesPerSecond").asLong()).isEqualTo(8);
        assertThat(s.at("/throughputWatchdog/minMeasurableBytes").asLong()).isEqualTo(256);
    }

    @Test
    void aPatchIsMergedKeyByKeyReturnedAndKeptAcrossARestart_SE4() {
        JsonNode patched = admin("PATCH", "{\"streamRecovery\":{\"idleTimeoutMs\":0,\"earlyEofRetries\":3,"
                + "\"throughputWatchdog\":{\"enabled\":true,\"windowMs\":120000}}}");

        JsonNode s = patched.get("streamRecovery");
        assertThat(s.get("idleTimeoutMs").asLong()).as("0 = off").isZero();
        assertThat(s.get("earlyEofRetries").asInt()).isEqualTo(3);
        assertThat(s.at("/throughputWatchdog/enabled").asBoolean()).isTrue();
        assertThat(s.at("/throughputWatchdog/windowMs").asLong()).isEqualTo(120_000);
        assertThat(s.get("readinessTimeoutMs").asLong()).as("untouched keys keep their value").isEqualTo(80_000);
        assertThat(s.at("/throughputWatchdog/warmupMs").asLong()).isEqualTo(30_000);
        assertThat(admin("GET", null)).isEqualTo(patched);

        sluice.close();
        sluice = new SluiceHarness(dir);
        assertThat(admin("GET", null)).as("persisted").isEqualTo(patched);

        JsonNode reverted = admin("PATCH", "{\"streamRecovery\":{\"idleTimeoutMs\":null,\"throughputWatchdog\":null}}");
        assertThat(reverted.at("/streamRecovery/idleTimeoutMs").asLong()).as("null reverts to the configured value").isEqualTo(180_000);
        assertThat(reverted.at("/streamRecovery/throughputWatchdog/enabled").asBoolean()).isFalse();
        assertThat(reverted.at("/streamRecovery/earlyEofRetries").asInt()).isEqualTo(3);
    }

    @Test
    void badStreamRecoveryValuesAre400sNamingThePathAndChangeNothing_SE4() {
        JsonNode before = admin("GET", null);

        JsonNode e = refused("{\"streamRecovery\":{\"throughputWatchdog\":{\"windowMs\":1000}}}");
        assertThat(e.get("param").asText()).isEqualTo("streamRecovery.throughputWatchdog.windowMs");
        assertThat(e.get("message").asText())
                .isEqualTo("'streamRecovery.throughputWatchdog.windowMs' must be between 5000 and 600000, got 1000.");
        assertThat(refused("{\"streamRecovery\":{\"idleTimeoutMs\":500}}").get("message").asText())
                .isEqualTo("'streamRecovery.idleTimeoutMs' must be 0 (off) or between 1000 and 3600000, got 500.");
        assertThat(refused("{\"streamRecovery\":{\"keepAliveIntervalMs\":\"15000\"}}").get("param").asText())
                .isEqualTo("streamRecovery.keepAliveIntervalMs");
        assertThat(refused("{\"streamRecovery\":{\"attemptDeadlineMs\":59999}}").get("param").asText())
                .isEqualTo("streamRecovery.attemptDeadlineMs");
        assertThat(refused("{\"streamRecovery\":{\"earlyEofRetries\":4}}").get("param").asText()).isEqualTo("streamRecovery.earlyEofRetries");
        assertThat(refused("{\"streamRecovery\":{\"readinessTimeoutMs\":1800001}}").get("param").asText())
                .isEqualTo("streamRecovery.readinessTimeoutMs");
        assertThat(refused("{\"streamRecovery\":{\"throughputWatchdog\":{\"enabled\":\"on\"}}}").get("param").asText())
                .isEqualTo("streamRecovery.throughputWatchdog.enabled");
        assertThat(refused("{\"streamRecovery\":{\"throughputWatchdog\":{\"minRate\":8}}}").get("param").asText())
                .isEqualTo("streamRecovery.throughputWatchdog.minRate");
        assertThat(refused("{\"streamRecovery\":{\"stallTimeoutMs\":null}}").get("param").asText()).isEqualTo("streamRecovery.stallTimeoutMs");

        assertThat(admin("GET", null)).isEqualTo(before);
    }
}
