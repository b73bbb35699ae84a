package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

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
        client = new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
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
        gemini(first, 1);
        first.enqueue(exhausted("2s"));
        first.setDefault(answer("after the pause"));

        HttpResponse<String> r1 = chat(MODEL);
        assertThat(client.expect(r1, 429).at("/error/code").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(r1.headers().firstValue("Retry-After")).hasValue("2");

        long t0 = System.nanoTime();
        HttpResponse<String> r2 = chat(MODEL);
        long waitedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(client.expect(r2, 200).at("/choices/0/message/content").asText()).isEqualTo("after the pause");
        assertThat(waitedMs).as("queued behind the pause").isGreaterThanOrEqualTo(1_500);
        assertThat(first.requestCount()).isEqualTo(2);

        JsonNode lockouts = client.expect(client.get("/api/resilience/model-cooldowns", adminKey), 200).get("data");
        assertThat(lockouts).as("a pause is not a lock").isEmpty();
    }
}
