package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two instances from the built zip on one PostgreSQL ({@code SLUICE_DATABASE_URL}, SPEC NF-6),
 * reached in turn like a round-robin load balancer would: what one instance writes the other
 * routes, authenticates and applies within a second; leases are exact across both; a session stays
 * pinned through either; a {@code kill -9} of one loses no acknowledged admin write and the other
 * keeps serving. Skipped without PostgreSQL binaries (failed with {@code SLUICE_REQUIRE_POSTGRES=1}).
 */
class SharedDatabaseEndToEndIT extends TwoInstanceFixture {

    private static final Duration VISIBLE_WITHIN = Duration.ofSeconds(1);

    private List<SluiceClient> twoInstances() {
        return twoInstances(Map.of("SLUICE_SESSION_AFFINITY_TTL_MS", "3600000"));
    }

    @Test
    void whatOneInstanceWritesTheOtherRoutesAuthenticatesAndAppliesWithinOneSecond_NF6() {
        List<SluiceClient> lb = twoInstances();
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);

        a.createConnection(adminKey, "alpha", "sk-upstream-SECRET", mocks.get(0).baseUrl() + "/v1");
        String clientKey = b.createKey(adminKey, "through-b");
        await().atMost(VISIBLE_WITHIN).untilAsserted(() -> {
            assertThat(chat(b, adminKey, Map.of()).statusCode()).as("a connection created through A routes on B").isEqualTo(200);
            assertThat(chat(a, clientKey, Map.of()).statusCode()).as("a key created on B authenticates on A").isEqualTo(200);
        });
        assertThat(mocks.get(0).requestCount()).isGreaterThanOrEqualTo(2);

        a.expect(a.patch("/api/settings", adminKey, Map.of("modelAliases", Map.of("fast", "alpha/m"))), 200);
        a.expect(a.patch("/api/resilience", adminKey, Map.of("modelLockout", Map.of("enabled", false))), 200);
        await().atMost(VISIBLE_WITHIN).untilAsserted(() -> {
            assertThat(b.expect(b.get("/api/settings", adminKey), 200).at("/modelAliases/fast").asText()).isEqualTo("alpha/m");
            assertThat(b.expect(b.get("/api/resilience", adminKey), 200).at("/modelLockout/enabled").asBoolean()).isFalse();
        });

        Set<String> instances = new HashSet<>();
        for (SluiceClient c : lb) {
            JsonNode health = c.expect(c.get("/api/monitoring/health", adminKey), 200);
            assertThat(health.get("mode").asText()).isEqualTo("postgres");
            assertThat(health.at("/stores/database/kind").asText()).isEqualTo("postgresql");
            assertThat(health.at("/stores/database/reachable").asBoolean()).isTrue();
            assertThat(health.at("/stores/database/url").asText()).isEqualTo(postgres.url(databaseName));
            instances.add(health.get("instanceId").asText());
            assertThat(c.serverOutput()).contains("instance " + health.get("instanceId").asText())
                    .doesNotContain(postgres.password()).doesNotContain("sk-upstream-SECRET");
        }
        assertThat(instances).as("each instance has its own id").hasSize(2);
    }

    @Test
    void aLeaseTakenOnAFencesAStaleGenerationOnBAndASessionPinnedOnAStaysPinnedThroughB_SL3_SA1_NF6() throws Exception {
        List<SluiceClient> lb = twoInstances();
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        List<String> ids = new ArrayList<>();
        for (MockUpstream m : mocks) {
            ids.add(a.createConnection(adminKey, "alpha", "sk-upstream-" + UUID.randomUUID(), m.baseUrl() + "/v1"));
        }
        String managed = a.expect(a.post("/api/keys", adminKey, Map.of("name", "managed", "scopes", List.of("lease:exclusive"),
                "allowedConnections", ids)), 201).get("key").asText();
        byte[] random = new byte[32];
        new java.security.SecureRandom().nextBytes(random);
        String owner = "vlo_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random);

        long first = a.expect(lease(a, managed, owner, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}"), 200).get("generation").asLong();
        a.expect(lease(a, managed, owner, "{\"action\":\"release\",\"generation\":" + first + "}"), 200);
        long second = a.expect(lease(a, managed, owner, "{\"action\":\"acquire\",\"model\":\"alpha/m\"}"), 200).get("generation").asLong();
        assertThat(second).isEqualTo(first + 1);
        int sent = mocks.stream().mapToInt(MockUpstream::requestCount).sum();
        // no wait: B decides on the lease rows as stored
        HttpResponse<String> stale = chat(b, managed, Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(first)));
        assertThat(b.expect(stale, 409).at("/error/code").asText()).isEqualTo("LEASE_FENCE_STALE");
        assertThat(mocks.stream().mapToInt(MockUpstream::requestCount).sum()).as("the stale request reached no upstream").isEqualTo(sent);
        assertThat(chat(b, managed, Map.of("X-Sluice-Lease-Owner", owner, "X-Sluice-Lease-Generation", String.valueOf(second)))
                .statusCode()).isEqualTo(200);

        String pinnedTo = a.expect(chat(a, adminKey, Map.of("X-Session-Id", "agent-7")), 200).at("/choices/0/message/content").asText();
        await().atMost(VISIBLE_WITHIN).untilAsserted(() -> assertThat(b.expect(chat(b, adminKey, Map.of("X-Session-Id", "agent-7")), 200)
                .at("/choices/0/message/content").asText()).isEqualTo(pinnedTo));
        for (int i = 0; i < 6; i++) {
            SluiceClient next = lb.get(i % 2);
            assertThat(next.expect(chat(next, adminKey, Map.of("X-Session-Id", "agent-7")), 200).at("/choices/0/message/content").asText())
                    .isEqualTo(pinnedTo);
        }
    }

    @Test
    void aKillMinus9OfOneInstanceDuringAdminWritesLosesNoAcknowledgedWriteAndTheOtherKeepsServing_NF6() throws Exception {
        List<SluiceClient> lb = twoInstances();
        SluiceClient a = lb.get(0);
        SluiceClient b = lb.get(1);
        a.createConnection(adminKey, "alpha", "sk-upstream-" + UUID.randomUUID(), mocks.get(0).baseUrl() + "/v1");
        ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        for (int t = 0; t < 4; t++) {
            writers.submit(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    HttpResponse<String> r = a.post("/api/keys", adminKey, Map.of("name", "k-" + UUID.randomUUID()));
                    if (r.statusCode() != 201) {
                        return null;
                    }
                    acknowledged.add(SluiceClient.JSON.readTree(r.body()).get("id").asText());
                }
                return null;
            });
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 40);
        processes.get(0).kill();
        writers.shutdownNow();
        assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

        List<String> written = List.copyOf(acknowledged);
        await().atMost(VISIBLE_WITHIN).untilAsserted(() ->
                assertThat(SluiceClient.listed(b.expect(b.get("/api/keys", adminKey), 200), "id")).containsAll(written));
        assertThat(chat(b, adminKey, Map.of()).statusCode()).as("B keeps serving").isEqualTo(200);
        assertThat(b.expect(b.post("/api/keys", adminKey, Map.of("name", "after")), 201).get("id").asText()).isNotBlank();
    }
}
