package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session affinity and exclusive leases (SPEC §10) through the built zip: a session stays on its
 * connection across requests and a {@code kill -9}; 30 owners racing for 3 connections get exactly
 * 3 leases; a stale generation never reaches the upstream; a {@code kill -9} in the middle of
 * acquires leaves every acknowledged lease and no double ownership.
 */
class SessionsEndToEndIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private final List<MockUpstream> mocks = new ArrayList<>();

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void startMocks() {
        for (int i = 0; i < 3; i++) {
            mocks.add(MockUpstream.start().setDefault(MockResponse.completion("from-" + i)));
        }
    }

    @AfterEach
    void stopMocks() {
        mocks.forEach(MockUpstream::close);
    }

    private Map<String, String> env(Path data) {
        Map<String, String> env = SluiceProcess.env(data, adminKey);
        env.put("SLUICE_SESSION_AFFINITY_TTL_MS", "3600000");
        return env;
    }

    /** Three equal connections (one per mock) and a managed key for them; returns the key. */
    private String setUp(SluiceClient c, List<String> ids) {
        for (MockUpstream m : mocks) {
            ids.add(c.createConnection(adminKey, "alpha", "sk-upstream-" + UUID.randomUUID(), m.baseUrl() + "/v1"));
        }
        return c.expect(c.post("/api/keys", adminKey, Map.of("name", "managed", "scopes", List.of("lease:exclusive"),
                "allowedConnections", ids)), 201).get("key").asText();
    }

    private static HttpResponse<String> send(SluiceClient c, String path, String key, String body, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(c.base().resolve(path)).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String owner() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return "vlo_" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String chat(SluiceClient c, String key, String session) throws Exception {
        HttpResponse<String> r = send(c, "/v1/chat/completions", key, SluiceClient.toJson(SluiceClient.chat("alpha/m", false)),
                Map.of("X-Session-Id", session));
        return c.expect(r, 200).at("/choices/0/message/content").asText();
    }

    @Test
    void aSessionStaysOnItsConnectionAcrossRequestsAndAKillMinus9_SA1_SA2() throws Exception {
        Path data = work.resolve("data");
        SluiceProcess first = servers.start(home, env(data));
        SluiceClient c = new SluiceClient(first);
        String key = setUp(c, new ArrayList<>());
        String s1 = chat(c, key, "agent-1");
        String s2 = chat(c, key, "agent-2");
        String s3 = chat(c, key, "agent-3");
        assertThat(new HashSet<>(List.of(s1, s2, s3))).as("new sessions spread over equal connections").hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(chat(c, key, "agent-2")).isEqualTo(s2);
        }
        first.kill();

        SluiceClient second = new SluiceClient(servers.start(home, env(data)));
        assertThat(chat(second, key, "agent-3")).isEqualTo(s3);
        assertThat(chat(second, key, "agent-2")).isEqualTo(s2);
        assertThat(chat(second, key, "agent-1")).isEqualTo(s1);
    }

    @Test
    void thirtyOwnersRaceForThreeConnectionsAndAStaleGenerationNeverReachesTheUpstream_SL3_SL5() throws Exception {
        SluiceClient c = new SluiceClient(servers.start(home, env(work.resolve("data"))));
        String key = setUp(c, new ArrayList<>());
        List<String> owners = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            owners.add(owner());
        }
        ConcurrentLinkedQueue<HttpResponse<String>> answers = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> granted = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(30);
        for (String o : owners) {
            pool.submit(() -> {
                HttpResponse<String> r = send(c, "/api/v1/session-leases", key, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}",
                        Map.of("X-Sluice-Lease-Owner", o));
                answers.add(r);
                if (r.statusCode() == 200) {
                    granted.add(o);
                }
                return null;
            });
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        assertThat(answers).hasSize(30);
        assertThat(answers.stream().filter(r -> r.statusCode() == 200)).hasSize(3);
        assertThat(answers.stream().filter(r -> r.statusCode() == 429)).hasSize(27)
                .allSatisfy(r -> assertThat(r.headers().firstValue("Retry-After")).isPresent());

        int sent = mocks.stream().mapToInt(MockUpstream::requestCount).sum();
        HttpResponse<String> stale = send(c, "/v1/chat/completions", key, SluiceClient.toJson(SluiceClient.chat("alpha/m", false)),
                Map.of("X-Sluice-Lease-Owner", granted.peek(), "X-Sluice-Lease-Generation", "7"));
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(c.expect(stale, 409).at("/error/code").asText()).isEqualTo("LEASE_FENCE_STALE");
        assertThat(mocks.stream().mapToInt(MockUpstream::requestCount).sum()).as("nothing reached an upstream").isEqualTo(sent);
    }

    @Test
    void aKillMinus9DuringAcquiresLeavesEveryAcknowledgedLeaseAndNoDoubleOwnership_SL4() throws Exception {
        Path data = work.resolve("data");
        SluiceProcess first = servers.start(home, env(data));
        SluiceClient c = new SluiceClient(first);
        List<String> ids = new ArrayList<>();
        String key = setUp(c, ids);
        // two owners hold their leases; the others acquire and release the third connection in a loop (two writes per
        // cycle) while the server is killed
        String keeper = owner();
        long keeperGeneration = c.expect(send(c, "/api/v1/session-leases", key, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}",
                Map.of("X-Sluice-Lease-Owner", keeper)), 200).get("generation").asLong();
        c.expect(send(c, "/api/v1/session-leases", key, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}",
                Map.of("X-Sluice-Lease-Owner", owner())), 200);
        AtomicInteger cycles = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        for (int t = 0; t < 6; t++) {
            pool.submit(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    String o = owner();
                    HttpResponse<String> r = send(c, "/api/v1/session-leases", key, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}",
                            Map.of("X-Sluice-Lease-Owner", o));
                    if (r.statusCode() != 200) {
                        continue;
                    }
                    long generation = SluiceClient.JSON.readTree(r.body()).get("generation").asLong();
                    send(c, "/api/v1/session-leases", key, "{\"action\":\"release\",\"generation\":" + generation + "}",
                            Map.of("X-Sluice-Lease-Owner", o));
                    cycles.incrementAndGet();
                }
                return null;
            });
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cycles.get() >= 20);
        first.kill();
        pool.shutdownNow();
        pool.awaitTermination(30, TimeUnit.SECONDS);

        SluiceClient second = new SluiceClient(servers.start(home, env(data)));
        JsonNode leases = second.expect(second.get("/api/sessions", adminKey), 200).get("leases");
        List<String> held = leases.findValuesAsText("connectionId");
        assertThat(held).as("one lease per connection at most").doesNotHaveDuplicates();
        assertThat(ids).containsAll(held);
        assertThat(held.size()).as("the two acknowledged, unreleased leases survived").isBetween(2, 3);
        HttpResponse<String> managed = send(second, "/v1/chat/completions", key, SluiceClient.toJson(SluiceClient.chat("alpha/m", false)),
                Map.of("X-Sluice-Lease-Owner", keeper, "X-Sluice-Lease-Generation", String.valueOf(keeperGeneration)));
        assertThat(managed.statusCode()).as("the keeper's lease still serves it").isEqualTo(200);
        // the server is consistent: the connections not held can be leased again
        HttpResponse<String> again = send(second, "/api/v1/session-leases", key, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}",
                Map.of("X-Sluice-Lease-Owner", owner()));
        assertThat(again.statusCode()).isEqualTo(held.size() < 3 ? 200 : 429);
    }
}
