package dev.sluice.distribution;

import static org.awaitility.Awaitility.await;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.TestRedis;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * The instances of {@link TwoInstanceFixture} in shared mode: one fresh Redis server per test
 * (skipped without its binary, failed with {@code SLUICE_REQUIRE_REDIS=1}), stopped after it, and
 * what the shared-mode tests say through every instance (connections, metrics).
 */
abstract class SharedModeFixture extends TwoInstanceFixture {

    TestRedis redis;

    @BeforeEach
    void freshRedis() {
        redis = TestRedis.startOrSkip(Assumptions::abort);
    }

    @AfterEach
    void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    static HttpResponse<String> chat(SluiceClient c, String key) {
        return chat(c, key, Map.of());
    }

    /** Creates an {@code alpha} connection to {@code upstream} through {@code c}; returns its id. */
    String connection(SluiceClient c, MockUpstream upstream, Map<String, Object> extra) {
        Map<String, Object> body = new java.util.HashMap<>(Map.of("provider", "alpha", "authType", "apikey",
                "apiKey", "sk-upstream-" + UUID.randomUUID(), "baseUrl", upstream.baseUrl() + "/v1"));
        body.putAll(extra);
        return c.expect(c.post("/api/providers", adminKey, body), 201).get("id").asText();
    }

    /** Waits until {@code b} routes to every connection another instance created (the snapshot's re-read, ≤ 1 s). */
    void awaitConnections(SluiceClient b, int n) {
        await().atMost(Duration.ofSeconds(2)).until(() -> b.expect(b.get("/api/providers", adminKey), 200).path("data").size() == n);
    }

    /**
     * Two accounts on one failing host (mock 2), created through {@code a}: one request through
     * {@code a} counts two failures and opens the host's breaker (once the others apply the same
     * breaker settings).
     */
    void openBreakerThrough(SluiceClient a, long resetTimeoutMs, SluiceClient... others) {
        a.expect(a.patch("/api/resilience", adminKey, Map.of("circuitBreaker", Map.of("apikey",
                Map.of("degradationThreshold", 1, "failureThreshold", 2, "resetTimeoutMs", resetTimeoutMs)))), 200);
        mocks.get(2).setDefault(MockResponse.json(500, "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"));
        connection(a, mocks.get(2), Map.of("disableCooling", true));
        connection(a, mocks.get(2), Map.of("disableCooling", true));
        for (SluiceClient b : others) {
            awaitConnections(b, 2);
            await().atMost(Duration.ofSeconds(2)).until(() ->
                    b.expect(b.get("/api/resilience", adminKey), 200).at("/circuitBreaker/apikey/failureThreshold").asInt() == 2);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            chat(a, adminKey);
            return a.expect(a.get("/api/monitoring/health", adminKey), 200).path("providerBreakers").findValuesAsText("state")
                    .contains("OPEN");
        });
    }

    /** One sample of {@code /metrics}, or -1 when absent. */
    double metric(SluiceClient c, String sample) {
        String text = c.get("/metrics", adminKey).body();
        for (String line : text.split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        return -1;
    }
}
