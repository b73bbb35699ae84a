package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exclusive managed-session leases (SPEC SL-1…SL-5) through a real server: the lease API, the
 * capacity answer under a race, the fence before anything reaches the upstream, and unmanaged
 * traffic kept off leased connections.
 */
class SessionLeasesIT {

    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    List<String> connections = new ArrayList<>();
    String managedKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start().setDefault(MockResponse.echoCompletion());
        for (int i = 1; i <= 3; i++) {
            connections.add(sluice.addConnection("{\"provider\":\"alpha\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-" + i
                    + "-abcdef\",\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"priority\":1}"));
        }
        managedKey = sluice.addKey("{\"name\":\"managed\",\"scopes\":[\"lease:exclusive\"],\"allowedConnections\":[\""
                + String.join("\",\"", connections) + "\"]}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    static String owner() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return "vlo_" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private HttpResponse<String> lease(String key, String owner, String body) {
        return sluice.send("POST", "/api/v1/session-leases", key, body, owner == null ? Map.of() : Map.of("X-Sluice-Lease-Owner", owner));
    }

    private HttpResponse<String> acquire(String owner) {
        return lease(managedKey, owner, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}");
    }

    @Test
    void acquireRenewReleaseAndTheRefusals_SL1_SL2() throws Exception {
        String owner = owner();
        HttpResponse<String> first = acquire(owner);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        JsonNode lease = read(first.body());
        assertThat(lease.get("state").asText()).isEqualTo("ACTIVE");
        assertThat(lease.get("generation").asLong()).isEqualTo(1);
        assertThat(lease.get("ttlMs").asLong()).isEqualTo(120_000);
        assertThat(first.body()).as("never the connection").doesNotContain(connections.get(0)).doesNotContain("connection")
                .doesNotContain("sk-upstream");

        JsonNode again = read(acquire(owner).body());
        assertThat(again.get("generation").asLong()).as("re-acquire reuses the generation").isEqualTo(1);
        assertThat(again.get("outcome").asText()).isEqualTo("REUSED");

        assertThat(lease(managedKey, owner, "{\"action\":\"renew\",\"generation\":2}").statusCode()).isEqualTo(409);
        assertThat(read(lease(managedKey, owner, "{\"action\":\"renew\",\"generation\":2}").body()).at("/error/code").asText())
                .isEqualTo("LEASE_FENCE_STALE");
        HttpResponse<String> renewed = lease(managedKey, owner, "{\"action\":\"renew\",\"generation\":1,\"ttlMs\":999999999}");
        assertThat(read(renewed.body()).get("ttlMs").asLong()).as("clamped").isEqualTo(1_800_000);

        HttpResponse<String> released = lease(managedKey, owner, "{\"action\":\"release\",\"generation\":1,\"reason\":\"OWNER_EXIT\"}");
        assertThat(read(released.body()).get("state").asText()).isEqualTo("RELEASED");
        assertThat(read(released.body()).get("reason").asText()).isEqualTo("OWNER_EXIT");
        HttpResponse<String> twice = lease(managedKey, owner, "{\"action\":\"release\",\"generation\":1}");
        assertThat(twice.statusCode()).as("idempotent").isEqualTo(200);
        assertThat(read(twice.body()).get("state").asText()).isEqualTo("RELEASED");
        assertThat(read(acquire(owner).body()).get("generation").asLong()).as("a new lease, a new generation").isEqualTo(2);

        String plainKey = sluice.addKey("{\"name\":\"plain\"}");
        assertThat(lease(plainKey, owner(), "{\"action\":\"acquire\",\"model\":\"alpha/m\"}").statusCode()).isEqualTo(403);
        assertThat(lease(managedKey, null, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}").statusCode()).isEqualTo(400);
        HttpResponse<String> malformed = lease(managedKey, "vlo_short", "{\"action\":\"acquire\",\"model\":\"alpha/m\"}");
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(read(malformed.body()).at("/error/code").asText()).isEqualTo("LEASE_CONTEXT_INVALID");
        HttpResponse<String> text = sluice.http.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create(sluice.base() + "/api/v1/session-leases")).header("Authorization", "Bearer " + managedKey)
                .header("X-Sluice-Lease-Owner", owner()).header("Content-Type", "text/plain")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"action\":\"acquire\",\"model\":\"alpha/m\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(text.statusCode()).isEqualTo(415);
        assertThat(read(text.body()).at("/error/code").asText()).isEqualTo("LEASE_CONTENT_TYPE_REQUIRED");
        assertThat(lease(managedKey, owner(), "{\"action\":\"acquire\",\"model\":\"nope/m\"}").statusCode()).isEqualTo(404);
    }

    @Test
    void thirtyOwnersRacingForThreeConnectionsGetExactlyThreeLeases_SL4_SL5() throws Exception {
        List<Callable<HttpResponse<String>>> racers = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String owner = owner();
            racers.add(() -> acquire(owner));
        }
        ExecutorService pool = Executors.newFixedThreadPool(30);
        List<HttpResponse<String>> answers = new ArrayList<>();
        try {
            for (Future<HttpResponse<String>> f : pool.invokeAll(racers)) {
                answers.add(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(answers.stream().filter(r -> r.statusCode() == 200)).hasSize(3);
        List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() == 429).toList();
        assertThat(refused).hasSize(27);
        JsonNode body = read(refused.get(0).body());
        assertThat(body.get("state").asText()).isEqualTo("WAITING_FOR_CAPACITY");
        assertThat(body.get("reason").asText()).isEqualTo("NO_FREE_ELIGIBLE_CONNECTION");
        assertThat(body.at("/error/code").asText()).isEqualTo("LEASE_CAPACITY_UNAVAILABLE");
        assertThat(body.get("retryAfter").asLong()).isBetween(1L, 120L);
        assertThat(refused.get(0).headers().firstValue("Retry-After")).hasValue(String.valueOf(body.get("retryAfter").asLong()));
        JsonNode admin = read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).get("leases");
        assertThat(admin).hasSize(3);
        assertThat(admin.findValuesAsText("connectionId")).containsExactlyInAnyOrderElementsOf(connections);
        assertThat(read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body()).at("/sessions/activeLeases").asInt())
                .isEqualTo(3);

        // SL-2: expiry is lazy; once the TTL ran out the capacity is free again
        sluice.clock.advance(Duration.ofSeconds(121));
        assertThat(acquire(owner()).statusCode()).isEqualTo(200);
    }

    @Test
    void aStaleGenerationNeverReachesTheUpstreamAndUnmanagedTrafficSkipsLeasedConnections_SL3() throws Exception {
        String owner = owner();
        long generation = read(acquire(owner).body()).get("generation").asLong();
        String chat = SluiceHarness.chatBody("alpha/m", false);

        HttpResponse<String> stale = sluice.send("POST", "/v1/chat/completions", managedKey, chat,
                Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(generation + 1)));
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(read(stale.body()).at("/error/code").asText()).isEqualTo("LEASE_FENCE_STALE");
        assertThat(upstream.requestCount()).as("nothing was sent upstream").isZero();
        assertThat(sluice.send("POST", "/v1/chat/completions", managedKey, chat, Map.of("X-Sluice-Lease-Owner", owner)).statusCode())
                .as("a managed request names its generation").isEqualTo(400);

        HttpResponse<String> managed = sluice.send("POST", "/v1/chat/completions", managedKey, chat,
                Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(generation)));
        assertThat(managed.statusCode()).as(managed.body()).isEqualTo(200);
        assertThat(managed.headers().firstValue("X-Sluice-Lease-Generation")).hasValue(String.valueOf(generation));
        String leased = managed.headers().firstValue("X-Sluice-Connection-Id").orElseThrow();
        assertThat(upstream.takeRequest(Duration.ofSeconds(5)).headers().keySet())
                .noneMatch(h -> h.toLowerCase(java.util.Locale.ROOT).startsWith("x-sluice-lease"));

        String plainKey = sluice.addKey("{\"name\":\"plain\"}");
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> unmanaged = sluice.send("POST", "/v1/chat/completions", plainKey, chat);
            assertThat(unmanaged.statusCode()).isEqualTo(200);
            assertThat(unmanaged.headers().firstValue("X-Sluice-Connection-Id")).get().isNotEqualTo(leased);
        }

        // the admin releases it: the next managed request is stale, the connection serves everyone again
        String id = read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).at("/leases/0/id").asText();
        assertThat(sluice.send("DELETE", "/api/sessions/leases/" + id, ADMIN_KEY, null).statusCode()).isEqualTo(200);
        assertThat(sluice.send("POST", "/v1/chat/completions", managedKey, chat,
                Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(generation))).statusCode()).isEqualTo(409);
    }

    @Test
    void aLeaseOnACoolingConnectionMovesToAFreeOneWithANewGeneration_SL4() {
        String owner = owner();
        long generation = read(acquire(owner).body()).get("generation").asLong();
        String leased = read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).at("/leases/0/connectionId").asText();
        upstream.enqueue(MockResponse.json(429, "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_error\"}}"));
        String chat = SluiceHarness.chatBody("alpha/m", false);
        Map<String, String> claim = Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(generation));

        HttpResponse<String> limited = sluice.send("POST", "/v1/chat/completions", managedKey, chat, claim);
        assertThat(limited.statusCode()).as("the lease holds one connection: no failover within the request").isEqualTo(429);

        HttpResponse<String> moved = sluice.send("POST", "/v1/chat/completions", managedKey, chat, claim);
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        assertThat(moved.headers().firstValue("X-Sluice-Lease-Generation")).hasValue(String.valueOf(generation + 1));
        assertThat(moved.headers().firstValue("X-Sluice-Connection-Id")).get().isNotEqualTo(leased);
        assertThat(sluice.send("POST", "/v1/chat/completions", managedKey, chat, claim).statusCode())
                .as("the old generation is stale now").isEqualTo(409);
    }
}
