package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Combos through the built distribution (SPEC §13 CO-1, CO-2; API-2). Mock upstreams on loopback. */
class CombosEndToEndIT {

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream first;
    private MockUpstream second;
    private SluiceClient client;
    private String clientKey;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() {
        first = MockUpstream.start();
        second = MockUpstream.start();
        client = new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
        clientKey = client.createKey(adminKey, "combos");
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
    }

    @Test
    void aComboFallsBackFromAFailingTargetAndIsListedAsAModel_CO1_API2() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        String beta = client.createConnection(adminKey, "beta", "sk-beta-0123456789", second.baseUrl() + "/v1");
        JsonNode created = client.expect(client.post("/api/combos", adminKey, Map.of("name", "coder", "strategy", "priority",
                "targets", List.of(Map.of("model", "alpha/m1"), Map.of("model", "beta/m2")))), 201);
        assertThat(created.at("/targets/1/model").asText()).isEqualTo("beta/m2");

        first.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        second.setDefault(MockResponse.completion("from beta"));
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("coder", false));
        assertThat(client.expect(r, 200).at("/choices/0/message/content").asText()).isEqualTo("from beta");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).hasValue(beta);
        assertThat(first.requestCount()).isEqualTo(1);

        JsonNode models = client.expect(client.get("/v1/models", clientKey), 200);
        assertThat(models.get("data").findValuesAsText("id")).contains("coder");

        HttpResponse<String> unknown = client.post("/api/combos", adminKey, Map.of("name", "bad", "strategy", "no-such",
                "targets", List.of(Map.of("model", "alpha/m1"))));
        assertThat(client.expect(unknown, 400).at("/error/param").asText()).isEqualTo("strategy");
    }

    private void duo() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        client.createConnection(adminKey, "beta", "sk-beta-0123456789", second.baseUrl() + "/v1");
        client.expect(client.post("/api/combos", adminKey, Map.of("name", "duo", "strategy", "priority",
                "targets", List.of(Map.of("model", "alpha/m1"), Map.of("model", "beta/m2")))), 201);
    }

    private static MockResponse slowDown(int seconds) {
        return MockResponse.status(429, "{\"error\":{\"message\":\"Rate limit reached, slow down\"}}").header("Retry-After",
                String.valueOf(seconds));
    }

    @Test
    void bothTargetsBriefly429TheComboWaitsAndSucceeds_CO3() {
        duo();
        client.expect(client.patch("/api/resilience", adminKey, Map.of("comboCooldownWait", Map.of("maxWaitMs", 5000))), 200);
        first.enqueue(slowDown(2));
        second.enqueue(slowDown(2));
        first.setDefault(MockResponse.completion("after the wait"));
        long t0 = System.nanoTime();
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("duo", false));
        long waitedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(client.expect(r, 200).at("/choices/0/message/content").asText()).isEqualTo("after the wait");
        assertThat(waitedMs).isGreaterThanOrEqualTo(2_000);
        assertThat(first.requestCount()).isEqualTo(2);
    }

    @Test
    void aClientThatDisconnectsEndsTheWaitAndNothingIsResent_CO3() throws InterruptedException {
        duo();
        client.expect(client.patch("/api/resilience", adminKey, Map.of("comboCooldownWait", Map.of("maxWaitMs", 5000))), 200);
        first.enqueue(slowDown(2));
        second.enqueue(slowDown(2));
        first.setDefault(MockResponse.completion("nobody reads this"));
        long t0 = System.nanoTime();
        try (RawHttpConnection c = new RawHttpConnection(client.base())) {
            c.post("/v1/chat/completions", clientKey, SluiceClient.toJson(SluiceClient.chat("duo", false)));
            // both targets answered 429: the combo now waits 2 s for them
            assertThat(second.takeRequest(Duration.ofSeconds(10))).isNotNull();
        }
        await().atMost(Duration.ofMillis(1_500)).until(() -> client.serverOutput().contains("the client disconnected during a"));
        long endedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(client.serverOutput()).contains("combo duo: the client disconnected during a 2050 ms cooldown wait");
        assertThat(endedMs).isLessThan(2_000);
        // up to and past the moment the wait would have ended: nothing is sent upstream again
        Duration pastTheWait = Duration.ofMillis(Math.max(1, 3_000 - (System.nanoTime() - t0) / 1_000_000));
        await().during(pastTheWait).atMost(pastTheWait.plusSeconds(2))
                .until(() -> first.requestCount() == 1 && second.requestCount() == 1);
    }

    @Test
    void aConnectionThatSendsItsNextRequestDuringTheWaitIsServedInOrder_CO3() throws InterruptedException {
        duo();
        client.expect(client.patch("/api/resilience", adminKey, Map.of("comboCooldownWait", Map.of("maxWaitMs", 5000))), 200);
        first.enqueue(slowDown(2));
        second.enqueue(slowDown(2));
        first.setDefault(MockResponse.completion("after the wait"));
        String body = SluiceClient.toJson(SluiceClient.chat("duo", false));
        try (RawHttpConnection c = new RawHttpConnection(client.base())) {
            c.post("/v1/chat/completions", clientKey, body);
            assertThat(second.takeRequest(Duration.ofSeconds(10))).isNotNull();
            // pipelined while the first request waits: the watcher reads it, the connection gets it back intact
            c.post("/v1/chat/completions", clientKey, body);
            RawHttpConnection.Response waited = c.read();
            assertThat(waited.status()).as(waited.body()).isEqualTo(200);
            assertThat(waited.body()).contains("after the wait");
            RawHttpConnection.Response next = c.read();
            assertThat(next.status()).as(next.body()).isEqualTo(200);
            assertThat(first.requestCount()).isEqualTo(3);
            // and the kept-alive connection carries on
            c.post("/v1/chat/completions", clientKey, body);
            RawHttpConnection.Response third = c.read();
            assertThat(third.status()).as(third.body()).isEqualTo(200);
            assertThat(first.requestCount()).isEqualTo(4);
        }
    }

    @Test
    void aCooldownLongerThanTheWaitAnswers429WithRetryAfter_CO3_CO4() {
        duo();
        client.expect(client.patch("/api/resilience", adminKey, Map.of("comboCooldownWait", Map.of("maxWaitMs", 1000))), 200);
        first.enqueue(slowDown(2));
        second.enqueue(slowDown(2));
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("duo", false));
        JsonNode error = client.expect(r, 429);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(error.at("/error/retry_after").asLong()).isEqualTo(2);
        // before dispatch (both keys still cooling): the same answer, with diagnostics
        HttpResponse<String> again = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("duo", false));
        JsonNode held = client.expect(again, 429);
        assertThat(held.at("/error/type").asText()).isEqualTo("rate_limit_error");
        assertThat(held.at("/error/retry_after").asLong()).isBetween(1L, 2L);
        assertThat(held.at("/error/reset_at").asText()).isNotEmpty();
        assertThat(held.at("/error/diagnostics/excluded")).hasSize(2);
        assertThat(first.requestCount() + second.requestCount()).isEqualTo(2);
    }

    @Test
    void everyTargetLockedForQuotaAnswers503AllTargetsSkipped_CO4() {
        duo();
        String quota = "{\"error\":{\"message\":\"You've reached your usage limit for this plan\"}}";
        first.enqueue(MockResponse.status(429, quota));
        second.enqueue(MockResponse.status(429, quota));
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("duo", false)), 429);
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("duo", false));
        JsonNode error = client.expect(r, 503);
        assertThat(error.at("/error/code").asText()).isEqualTo("ALL_TARGETS_SKIPPED");
        assertThat(r.headers().firstValue("Retry-After")).isEmpty();
        assertThat(first.requestCount() + second.requestCount()).isEqualTo(2);
    }

    @Test
    void whenEveryTargetFailsTheEmergencyFallbackSetAtRunTimeServes_OF3() {
        duo();
        String gamma = client.createConnection(adminKey, "gamma", "sk-gamma-0123456789", second.baseUrl() + "/v1");
        first.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"down\"}}"));
        second.enqueue(MockResponse.status(503, "{\"error\":{\"message\":\"down\"}}"));
        second.setDefault(MockResponse.completion("from the emergency fallback"));
        JsonNode flags = client.expect(client.patch("/api/settings", adminKey, Map.of("featureFlags", Map.of("emergencyFallback", "gamma/m3"))), 200);
        assertThat(flags.at("/featureFlags/emergencyFallback").asText()).isEqualTo("gamma/m3");
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("duo", false));
        assertThat(client.expect(r, 200).at("/choices/0/message/content").asText()).isEqualTo("from the emergency fallback");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).hasValue(gamma);
        assertThat(r.headers().firstValue("X-Sluice-Model")).hasValue("m3");
    }
}
