package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 37, §3: three instances from the built zip on one PostgreSQL and one Redis — C reaches
 * Redis through a {@link TcpPartition} on loopback, so that it alone can be cut off while A and B
 * still reach it. {@code maxConcurrent}, cooldowns, breakers and exclusive leases hold over all three; then one
 * instance is killed ({@code kill -9}) and another partitioned from Redis during the run, and the
 * survivors keep the guarantees the operator guide states for each case.
 */
class ThreeInstancesEndToEndIT extends SharedModeFixture {

    private TcpPartition toRedis;

    @AfterEach
    void stopPartition() {
        if (toRedis != null) {
            toRedis.close();
        }
    }

    /** A and B straight to Redis, C through the partition. */
    private List<SluiceClient> threeInstances() {
        toRedis = TcpPartition.forward(redis.port());
        Map<String, String> direct = Map.of("SLUICE_REDIS_URL", redis.url());
        Map<String, String> viaPartition = Map.of("SLUICE_REDIS_URL", "redis://127.0.0.1:" + toRedis.port() + "/0");
        return instances(List.of(direct, direct, viaPartition));
    }

    /** Sends {@code n} requests at once, in turn through the given instances; returns their statuses. */
    private static List<Integer> burst(int n, List<SluiceClient> via, String key) throws Exception {
        List<Future<Integer>> answers = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                SluiceClient c = via.get(i % via.size());
                answers.add(clients.submit(() -> chat(c, key).statusCode()));
            }
            List<Integer> out = new ArrayList<>();
            for (Future<Integer> f : answers) {
                out.add(f.get());
            }
            return out;
        }
    }

    @Test
    void maxConcurrentHoldsOverThreeInstancesThroughTheKillOfOneAndThePartitionOfAnother_issue37() throws Exception {
        List<SluiceClient> lb = threeInstances();
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        SluiceClient c = lb.get(2);
        mocks.get(0).setDefault(MockResponse.delayed(Duration.ofMillis(100), MockResponse.completion("slow")));
        connection(a, mocks.get(0), Map.of("maxConcurrent", 1, "rateLimitOverrides", Map.of("maxWaitMs", 30_000)));
        awaitConnections(b, 1);
        awaitConnections(c, 1);

        // all three healthy: one request at a time upstream, whichever instance it came through
        assertThat(burst(9, lb, adminKey)).containsOnly(200);
        assertThat(mocks.get(0).maxConcurrentRequests()).as("in flight at once upstream, three instances").isEqualTo(1);

        // A dies holding the permit: B is served once it expires (≤ 5 s)
        mocks.get(0).enqueue(MockResponse.hang());
        CompletableFuture.runAsync(() -> catchThrowable(() -> chat(a, adminKey)));
        await().atMost(Duration.ofSeconds(10)).until(() -> mocks.get(0).requestCount() == 10);
        processes.get(0).kill();
        long dead = System.nanoTime();
        assertThat(chat(b, adminKey).statusCode()).isEqualTo(200);
        long freeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - dead);
        System.out.printf("issue 37 figure (three instances): kill -9 of A holding the permit -> B served %d ms later%n", freeMs);
        assertThat(freeMs).as("the permit expires ≤ 5 s after the death; then B's retry, routing and answer").isLessThan(6_000);

        // C is cut off from Redis (A dead, B still reaches it): one timeout, then C serves on its local fallback
        toRedis.partition();
        long t0 = System.nanoTime();
        assertThat(chat(c, adminKey).statusCode()).isEqualTo(200);
        long firstMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        long t1 = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            assertThat(chat(c, adminKey).statusCode()).isEqualTo(200);
        }
        long nextMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1) / 5;
        System.out.printf("issue 37 figure (three instances): C partitioned -> first request %d ms, then %d ms each%n", firstMs, nextMs);
        assertThat(firstMs).as("the request that meets the partition: one 250 ms timeout").isLessThan(1_000);
        assertThat(nextMs).as("on the fallback: no Redis call").isLessThan(200);
        assertThat(metric(c, "sluice_redis_fallback")).isEqualTo(1.0);
        assertThat(metric(b, "sluice_redis_fallback")).as("B still shares").isEqualTo(0.0);
        assertThat(b.expect(b.get("/api/monitoring/health", adminKey), 200).at("/stores/redis/reachable").asBoolean()).isTrue();

        // healed: C is back in shared mode, and the limit holds over B and C again
        toRedis.heal();
        await().atMost(Duration.ofSeconds(5)).until(() -> metric(c, "sluice_redis_fallback") == 0.0);
        assertThat(metric(c, "sluice_redis_switches_total{to=\"local\"}")).isEqualTo(1.0);
        assertThat(metric(c, "sluice_redis_switches_total{to=\"shared\"}")).isEqualTo(1.0);
        assertThat(burst(6, List.of(b, c), adminKey)).containsOnly(200);
        assertThat(mocks.get(0).maxConcurrentRequests()).as("in flight at once upstream over the whole run").isEqualTo(1);
    }

    @Test
    void aCooldownAndALeaseWrittenThroughOneInstanceHoldOnTheOtherTwo_issue37() {
        List<SluiceClient> lb = threeInstances();
        SluiceClient a = lb.get(0);
        mocks.get(0).setDefault(MockResponse.json(429, "{\"error\":{\"message\":\"rate limited\",\"type\":\"rate_limit_error\"}}")
                .header("Retry-After", "60"));
        List<String> ids = List.of(connection(a, mocks.get(0), Map.of()), connection(a, mocks.get(1), Map.of()));
        awaitConnections(lb.get(1), 2);
        awaitConnections(lb.get(2), 2);
        // A sends until the limited account answered its 429 once (then it fails over to the other)
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            assertThat(chat(a, adminKey).statusCode()).isEqualTo(200);
            return mocks.get(0).requestCount() == 1;
        });
        // at once, through B and C in turn: the cooled account is never called
        for (int i = 0; i < 6; i++) {
            SluiceClient via = lb.get(1 + i % 2);
            assertThat(chat(via, adminKey).statusCode()).isEqualTo(200);
        }
        assertThat(mocks.get(0).requestCount()).as("calls to the cooled account").isEqualTo(1);

        // an exclusive lease taken through A (decided in PostgreSQL): its generation fences on B and C alike
        String managed = a.expect(a.post("/api/keys", adminKey, Map.of("name", "managed", "scopes", List.of("lease:exclusive"),
                "allowedConnections", List.of(ids.get(1)))), 201)
                .get("key").asText();
        byte[] random = new byte[32];
        new java.security.SecureRandom().nextBytes(random);
        String owner = "vlo_" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        long first = a.expect(lease(a, managed, owner, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}"), 200).get("generation").asLong();
        a.expect(lease(a, managed, owner, "{\"action\":\"release\",\"generation\":" + first + "}"), 200);
        long second = a.expect(lease(a, managed, owner, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}"), 200).get("generation").asLong();
        assertThat(second).isEqualTo(first + 1);
        int sent = mocks.get(0).requestCount() + mocks.get(1).requestCount();
        for (SluiceClient via : lb.subList(1, 3)) {
            HttpResponse<String> stale = chat(via, managed, Map.of("X-Sluice-Lease-Owner", owner,
                    "X-Sluice-Lease-Generation", String.valueOf(first)));
            assertThat(via.expect(stale, 409).at("/error/code").asText()).isEqualTo("LEASE_FENCE_STALE");
        }
        assertThat(mocks.get(0).requestCount() + mocks.get(1).requestCount()).as("the stale requests reached no upstream").isEqualTo(sent);
        for (SluiceClient via : lb.subList(1, 3)) {
            assertThat(chat(via, managed, Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(second)))
                    .statusCode()).isEqualTo(200);
        }
        assertThat(mocks.get(0).requestCount()).as("the leased requests went to the leased account only").isEqualTo(1);
    }

    @Test
    void aBreakerOpenedThroughOneInstanceShortCircuitsOnTheOtherTwo_issue37() {
        List<SluiceClient> lb = threeInstances();
        SluiceClient a = lb.get(0);
        openBreakerThrough(a, 60_000, lb.get(1), lb.get(2));
        int sent = mocks.get(2).requestCount();
        for (SluiceClient via : lb.subList(1, 3)) {
            HttpResponse<String> r = chat(via, adminKey);
            JsonNode refused = via.expect(r, 503);
            assertThat(refused.at("/error/diagnostics/excluded/0/reason").asText()).isEqualTo("circuit_open");
        }
        assertThat(mocks.get(2).requestCount()).as("B and C sent nothing to the host A's breaker opened on").isEqualTo(sent);
    }

    @Test
    void aRoundRobinComboTakesItsTurnsAcrossTheThreeInstances_issue37() {
        List<SluiceClient> lb = threeInstances();
        SluiceClient a = lb.get(0);
        List<Map<String, Object>> targets = new ArrayList<>();
        for (MockUpstream m : mocks) {
            targets.add(Map.of("model", "alpha/m", "connectionId", connection(a, m, Map.of())));
        }
        a.expect(a.post("/api/combos", adminKey, Map.of("name", "turns", "strategy", "round-robin", "targets", targets)), 201);
        for (SluiceClient c : lb.subList(1, 3)) {
            awaitConnections(c, 3);
            await().atMost(Duration.ofSeconds(10)).until(() -> c.get("/api/combos", adminKey).statusCode() == 200
                    && c.get("/api/combos", adminKey).body().contains("\"turns\""));
        }
        // one request through each instance in turn, six in all: the turn goes round the cluster, not round each instance
        for (int i = 0; i < 6; i++) {
            SluiceClient via = lb.get(i % 3);
            HttpResponse<String> r = send(java.net.http.HttpRequest.newBuilder(via.base().resolve("/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + adminKey).header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(SluiceClient.toJson(SluiceClient.chat("turns", false)))).build());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        assertThat(mocks.stream().map(m -> m.requestCount()).toList()).as("requests per target").containsExactly(2, 2, 2);
    }
}
