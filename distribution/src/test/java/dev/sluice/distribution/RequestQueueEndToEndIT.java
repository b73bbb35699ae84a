package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Body-declared retries through the built distribution (SPEC §14 RQ-4): Gemini connections (API
 * keys, so protected by the request queue) against mock upstreams on 127.0.0.1 that answer 429
 * with a structured {@code google.rpc.RetryInfo}.
 */
class RequestQueueEndToEndIT {

    private static final String MODEL = "gemini-2.5-flash";

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
    }

    private void boot(Map<String, String> extraEnv) {
        Map<String, String> env = SluiceProcess.env(work.resolve("data"), adminKey);
        env.putAll(extraEnv);
        client = new SluiceClient(servers.start(home, env));
        clientKey = client.createKey(adminKey, "queue");
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
    }

    private String gemini(MockUpstream upstream, int priority) {
        return client.expect(client.post("/api/providers", adminKey, Map.of("provider", "gemini", "authType", "apikey",
                "apiKey", "gm-test-" + priority + "-0123456789", "baseUrl", upstream.baseUrl(), "priority", priority)), 201)
                .get("id").asText();
    }

    private static MockResponse exhausted(String retryDelay) {
        return MockResponse.status(429, ("{'error':{'code':429,'message':'You exceeded your current quota.','status':'RESOURCE_EXHAUSTED',"
                + "'details':[{'@type':'type.googleapis.com/google.rpc.RetryInfo','retryDelay':'" + retryDelay + "'}]}}").replace('\'', '"'));
    }

    private static MockResponse answer(String text) {
        return MockResponse.json(200, ("{'candidates':[{'content':{'parts':[{'text':'" + text + "'}],'role':'model'},"
                + "'finishReason':'STOP','index':0}],'usageMetadata':{'promptTokenCount':3,'candidatesTokenCount':2,'totalTokenCount':5},"
                + "'modelVersion':'gemini-2.5-flash'}").replace('\'', '"'));
    }

    private HttpResponse<String> chat(String model) {
        return client.post("/v1/chat/completions", clientKey, SluiceClient.chat("gemini/" + model, false));
    }

    @Test
    void aDayLongRetryInfoLocksTheModelOnThatConnectionAndTheNextRequestGoesElsewhere_RQ4() {
        boot(Map.of());
        String locked = gemini(first, 1);
        String other = gemini(second, 2);
        first.enqueue(exhausted("86399s"));
        first.setDefault(answer("from the first key"));
        second.setDefault(answer("from the second key"));

        HttpResponse<String> r1 = chat(MODEL);
        assertThat(client.expect(r1, 200).at("/choices/0/message/content").asText()).isEqualTo("from the second key");
        assertThat(r1.headers().firstValue("X-Sluice-Connection-Id")).hasValue(other);

        HttpResponse<String> r2 = chat(MODEL);
        assertThat(client.expect(r2, 200).at("/choices/0/message/content").asText()).isEqualTo("from the second key");
        assertThat(first.requestCount()).as("the locked model is not sent to the first key again").isEqualTo(1);

        JsonNode lockouts = client.expect(client.get("/api/resilience/model-cooldowns", adminKey), 200).get("data");
        assertThat(lockouts).hasSize(1);
        assertThat(lockouts.get(0).get("connectionId").asText()).isEqualTo(locked);
        assertThat(lockouts.get(0).get("model").asText()).isEqualTo(MODEL);
        assertThat(lockouts.get(0).get("remainingMs").asLong()).isBetween(86_000_000L, 86_399_000L);

        // the connection itself was neither paused nor cooled: another model still goes to the first key
        HttpResponse<String> pro = chat("gemini-2.5-pro");
        assertThat(client.expect(pro, 200).at("/choices/0/message/content").asText()).isEqualTo("from the first key");
        assertThat(pro.headers().firstValue("X-Sluice-Connection-Id")).hasValue(locked);
    }

    @Test
    void aTwoSecondRetryInfoPacesTheQueueAndTheNextRequestWaitsAndSucceeds_RQ4() {
        boot(Map.of());
        gemini(first, 1);
        first.enqueue(exhausted("2s"));
        first.setDefault(answer("after the pause"));

        HttpResponse<String> r1 = chat(MODEL);
        assertThat(client.expect(r1, 429).at("/error/code").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(r1.headers().firstValue("Retry-After")).hasValue("2");
        // Gemini's limits are per model: the pause holds that model only
        JsonNode row = client.expect(client.get("/api/rate-limits", adminKey), 200).get("data").get(0);
        assertThat(row.get("pausedUntil").isNull()).isTrue();
        assertThat(row.at("/pausedModels/" + MODEL).asLong()).isPositive();

        long t0 = System.nanoTime();
        HttpResponse<String> r2 = chat(MODEL);
        long waitedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(client.expect(r2, 200).at("/choices/0/message/content").asText()).isEqualTo("after the pause");
        assertThat(waitedMs).as("queued behind the pause").isGreaterThanOrEqualTo(1_500);
        assertThat(first.requestCount()).isEqualTo(2);

        JsonNode lockouts = client.expect(client.get("/api/resilience/model-cooldowns", adminKey), 200).get("data");
        assertThat(lockouts).as("a pause is not a lock").isEmpty();
    }

    @Test
    void theQueueEnvironmentVariablesSetTheirSettingsAndAutoEnableBeatsTheStoredOne_RQ3_RQ5_RQ7() {
        boot(Map.of("RATE_LIMIT_MAX_WAIT_MS", "12000", "RATE_LIMIT_EXECUTION_MAX_WAIT_MS", "900000", "RATE_LIMIT_MAX_QUEUE_DEPTH", "7",
                "RATE_LIMIT_AUTO_ENABLE", "off"));
        JsonNode queue = client.expect(client.get("/api/resilience", adminKey), 200).get("requestQueue");
        assertThat(queue.get("maxWaitMs").asLong()).isEqualTo(12_000);
        assertThat(queue.get("executionMaxWaitMs").asLong()).isEqualTo(900_000);
        assertThat(queue.get("maxQueueDepth").asInt()).isEqualTo(7);
        // RQ-3: what is PATCHed beats the environment
        client.expect(client.patch("/api/resilience", adminKey, Map.of("requestQueue", Map.of("maxQueueDepth", 3,
                "autoEnableApiKeyProviders", true))), 200);
        assertThat(client.expect(client.get("/api/resilience", adminKey), 200).at("/requestQueue/maxQueueDepth").asInt()).isEqualTo(3);

        String id = gemini(first, 1);
        // RQ-7: RATE_LIMIT_AUTO_ENABLE=off beats even the stored true
        JsonNode row = client.expect(client.get("/api/rate-limits", adminKey), 200).get("data").get(0);
        assertThat(row.get("connectionId").asText()).isEqualTo(id);
        assertThat(row.get("protected").asBoolean()).isFalse();
        JsonNode set = client.expect(client.post("/api/rate-limits", adminKey, Map.of("connectionId", id, "enabled", true)), 200);
        assertThat(set.get("protected").asBoolean()).as("explicit protection has no opt-out").isTrue();
    }

    @Test
    void aQueuedRequestWhoseClientDisconnectsLeavesTheQueueAndIsNeverSent() throws InterruptedException {
        boot(Map.of());
        String id = client.expect(client.post("/api/providers", adminKey, Map.of("provider", "alpha", "authType", "apikey",
                "apiKey", "sk-alpha-0123456789", "baseUrl", first.baseUrl() + "/v1", "maxConcurrent", 1)), 201).get("id").asText();
        first.enqueue(MockResponse.delayed(java.time.Duration.ofMillis(3_000), MockResponse.completion("slow")));
        first.setDefault(MockResponse.completion("next"));
        String body = SluiceClient.toJson(SluiceClient.chat("alpha/m1", false));
        try (RawHttpConnection holder = new RawHttpConnection(client.base())) {
            holder.post("/v1/chat/completions", clientKey, body);
            assertThat(first.takeRequest(java.time.Duration.ofSeconds(5))).as("the first holds the only permit").isNotNull();
            try (RawHttpConnection queued = new RawHttpConnection(client.base())) {
                queued.post("/v1/chat/completions", clientKey, body);
                awaitQueued(id, 1);
            }
            // the second client hung up while queued: it leaves the queue well before the permit frees
            awaitQueued(id, 0);
            assertThat(holder.read().status()).isEqualTo(200);
        }
        // the departed request is never sent
        await().during(java.time.Duration.ofMillis(300)).atMost(java.time.Duration.ofSeconds(2)).until(() -> first.requestCount() == 1);
    }

    private void awaitQueued(String connectionId, int n) {
        await().alias("queued on " + connectionId).atMost(java.time.Duration.ofSeconds(2))
                .until(() -> client.expect(client.get("/api/rate-limits", adminKey), 200).get("data").get(0).get("queued").asInt() == n);
    }
}
