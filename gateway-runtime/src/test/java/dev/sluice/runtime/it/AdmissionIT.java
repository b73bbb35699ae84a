package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Caps and the request queue through a real server (SPEC §12 QC-1, QC-2; §14 RQ-5). */
class AdmissionIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String clientKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private String connection(String extraJson) {
        HttpResponse<String> r = sluice.send("POST", "/api/providers", ADMIN_KEY, "{\"provider\":\"alpha\",\"authType\":\"apikey\","
                + "\"apiKey\":\"sk-upstream-alpha-abcdef\",\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"" + extraJson + "}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return read(r.body()).get("id").asText();
    }

    private List<HttpResponse<String>> concurrently(int n, String model) throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(pool.submit(() -> sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(model, false))));
            }
            List<HttpResponse<String>> out = new ArrayList<>();
            for (Future<HttpResponse<String>> f : futures) {
                out.add(f.get(60, TimeUnit.SECONDS));
            }
            return out;
        }
    }

    @Test
    void aConnectionCappedAtOneServesTwentyClientsOneAtATime_QC1() throws Exception {
        connection(",\"maxConcurrent\":1");
        upstream.setDefault(MockResponse.delayed(Duration.ofMillis(50), MockResponse.completion("ok")));

        List<HttpResponse<String>> answers = concurrently(20, "alpha/m1");

        assertThat(answers).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200));
        assertThat(upstream.requestCount()).isEqualTo(20);
        assertThat(upstream.maxConcurrentRequests()).isEqualTo(1);
    }

    @Test
    void beyondMaxQueueDepthClientsAreRefusedAtOnceAndNothingIsSent_RQ5() throws Exception {
        connection(",\"maxConcurrent\":1");
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"requestQueue\":{\"maxQueueDepth\":5}}").statusCode())
                .isEqualTo(200);
        // the first request holds the only permit long enough for all 20 to arrive
        upstream.enqueue(MockResponse.delayed(Duration.ofMillis(1_500), MockResponse.completion("first")));
        upstream.setDefault(MockResponse.completion("queued"));

        List<HttpResponse<String>> answers = concurrently(20, "alpha/m1");

        List<HttpResponse<String>> served = answers.stream().filter(r -> r.statusCode() == 200).toList();
        List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() != 200).toList();
        assertThat(served).hasSize(6);
        assertThat(refused).hasSize(14).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(429);
            assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("RATE_LIMIT_QUEUE_FULL");
            assertThat(read(r.body()).at("/error/type").asText()).isEqualTo("rate_limit_error");
        });
        assertThat(upstream.requestCount()).isEqualTo(6);
        assertThat(upstream.maxConcurrentRequests()).isEqualTo(1);
    }

    @Test
    void aModelCapSerializesThatModelOnlyAndIsEditableWithPatch_QC2() throws Exception {
        String id = connection("");
        HttpResponse<String> patched = sluice.send("PATCH", "/api/providers/" + id, ADMIN_KEY,
                "{\"rateLimitOverrides\":{\"modelConcurrency\":{\"glm-5\":1}}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        assertThat(read(patched.body()).at("/rateLimitOverrides/modelConcurrency/glm-5").asInt()).isEqualTo(1);
        upstream.setDefault(MockResponse.delayed(Duration.ofMillis(200), MockResponse.completion("ok")));

        assertThat(concurrently(6, "alpha/glm-5")).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
        assertThat(upstream.maxConcurrentRequests()).isEqualTo(1);
        // a saturated model gate is no evidence against the provider, the account or the model
        com.fasterxml.jackson.databind.JsonNode health = read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body());
        assertThat(health.get("lockouts").asInt()).isZero();
        assertThat(health.at("/connections/cooling").asInt()).isZero();
        assertThat(health.get("providerBreakers").get(0).get("failureCount").asInt()).isZero();

        upstream.clear();
        upstream.setDefault(MockResponse.delayed(Duration.ofMillis(500), MockResponse.completion("ok")));
        assertThat(concurrently(6, "alpha/glm-4.7")).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
        assertThat(upstream.maxConcurrentRequests()).as("an uncapped model runs side by side").isGreaterThan(1);
    }

    @Test
    void aStreamHoldsItsPermitUntilItsLastEvent_QC1() throws Exception {
        connection(",\"maxConcurrent\":1");
        upstream.setDefault(MockResponse.chatStream(List.of("a", "b", "c"), Duration.ofMillis(100)));
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                futures.add(pool.submit(() -> sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m1", true))));
            }
            for (Future<HttpResponse<String>> f : futures) {
                assertThat(f.get(30, TimeUnit.SECONDS).body()).contains("[DONE]");
            }
        }
        assertThat(upstream.maxConcurrentRequests()).isEqualTo(1);
    }

    @Test
    void rateLimitsIsTheOnlyWritePathOfProtectionAndShowsEachQueue_RQ7_RQ8_RQ9() {
        String id = connection("");
        com.fasterxml.jackson.databind.JsonNode listed = read(sluice.send("GET", "/api/rate-limits", ADMIN_KEY, null).body()).get("data").get(0);
        assertThat(listed.get("connectionId").asText()).isEqualTo(id);
        assertThat(listed.get("rateLimitProtection").asBoolean()).isFalse();
        // RQ-7: an active API-key connection is protected by auto-enable
        assertThat(listed.get("protected").asBoolean()).isTrue();
        assertThat(listed.get("running").asInt()).isZero();
        assertThat(listed.get("queued").asInt()).isZero();
        assertThat(listed.get("pausedUntil").isNull()).isTrue();

        HttpResponse<String> set = sluice.send("POST", "/api/rate-limits", ADMIN_KEY, "{\"connectionId\":\"" + id + "\",\"enabled\":true}");
        assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
        assertThat(read(set.body()).get("rateLimitProtection").asBoolean()).isTrue();
        assertThat(read(sluice.send("GET", "/api/providers/" + id, ADMIN_KEY, null).body()).get("rateLimitProtection").asBoolean()).isTrue();
        // RQ-9: PUT ignores the field
        HttpResponse<String> put = sluice.send("PUT", "/api/providers/" + id, ADMIN_KEY, "{\"provider\":\"alpha\",\"authType\":\"apikey\","
                + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"rateLimitProtection\":false}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        assertThat(read(put.body()).get("rateLimitProtection").asBoolean()).isTrue();

        HttpResponse<String> missing = sluice.send("POST", "/api/rate-limits", ADMIN_KEY, "{\"connectionId\":\"" + id + "\"}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(read(missing.body()).at("/error/param").asText()).isEqualTo("enabled");
        HttpResponse<String> unknown = sluice.send("POST", "/api/rate-limits", ADMIN_KEY, "{\"connectionId\":\"nope\",\"enabled\":true}");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(sluice.send("POST", "/api/rate-limits", clientKey, "{\"connectionId\":\"" + id + "\",\"enabled\":true}").statusCode())
                .isEqualTo(403);
    }

    @Test
    void anAttemptRunningPastItsExecutionBoundIsStoppedWith504_RQ2() {
        sluice.close();
        sluice = new SluiceHarness(dir.resolve("rq2"), Duration.ofSeconds(2));
        clientKey = sluice.addKey("{\"name\":\"it\"}");
        // the bound is raised to the executor's own start timeout (2 s here)
        connection(",\"rateLimitOverrides\":{\"executionMaxWaitMs\":1}");
        // headers at once, then a body that trickles for 3.6 s: no read waits anywhere near 2 s (a loaded CI
        // machine once stretched 300 ms gaps past a 1 s read timeout), the whole does
        upstream.setDefault(MockResponse.sse(java.util.Collections.nCopies(24, "{}"), Duration.ofMillis(150)));

        long t0 = System.nanoTime();
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m1", false));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;

        assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
        assertThat(read(r.body()).at("/error/code").asText()).as(r.body()).isEqualTo("RATE_LIMIT_EXECUTION_TIMEOUT");
        assertThat(read(r.body()).at("/error/message").asText()).contains("executionMaxWaitMs (2000 ms)");
        assertThat(tookMs).as("stopped at the bound, not after the whole body").isLessThan(3_300);
        // the interrupt stayed with the attempt: the next request on the same server is served
        upstream.setDefault(MockResponse.completion("fine"));
        assertThat(sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m1", false)).statusCode()).isEqualTo(200);
    }

    @Test
    void aFullConnectionIsPassedOverForOneWithRoomBeforeAnyoneQueues_QC1() throws Exception {
        MockUpstream second = MockUpstream.start();
        try {
            connection(",\"maxConcurrent\":1,\"priority\":1");
            HttpResponse<String> r = sluice.send("POST", "/api/providers", ADMIN_KEY, "{\"provider\":\"alpha\",\"authType\":\"apikey\","
                    + "\"apiKey\":\"sk-upstream-alpha-second\",\"baseUrl\":\"" + second.baseUrl() + "/v1\",\"maxConcurrent\":1,\"priority\":2}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            upstream.setDefault(MockResponse.delayed(Duration.ofMillis(800), MockResponse.completion("first")));
            second.setDefault(MockResponse.delayed(Duration.ofMillis(800), MockResponse.completion("second")));

            long t0 = System.nanoTime();
            List<HttpResponse<String>> answers = concurrently(2, "alpha/m1");
            long tookMs = (System.nanoTime() - t0) / 1_000_000;

            assertThat(answers).allSatisfy(a -> assertThat(a.statusCode()).isEqualTo(200));
            assertThat(upstream.requestCount()).isEqualTo(1);
            assertThat(second.requestCount()).as("the second key took the request the first had no room for").isEqualTo(1);
            assertThat(tookMs).as("side by side, not one after the other").isLessThan(1_500);
        } finally {
            second.close();
        }
    }

    @Test
    void aQuotaShareComboTakesTurnsOnACappedAccountButIsNeverRefusedForWantOfOne_QC3() throws Exception {
        connection(",\"maxConcurrent\":1");
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"requestQueue\":{\"maxQueueDepth\":1}}").statusCode())
                .isEqualTo(200);
        assertThat(sluice.send("POST", "/api/combos", ADMIN_KEY,
                "{\"name\":\"shared\",\"strategy\":\"quota-share\",\"targets\":[{\"model\":\"alpha/m1\"}]}").statusCode()).isEqualTo(201);
        upstream.setDefault(MockResponse.delayed(Duration.ofMillis(600), MockResponse.completion("ok")));

        // straight to the model: one runs, one queues, the third is refused
        List<HttpResponse<String>> direct = concurrently(3, "alpha/m1");
        assertThat(direct.stream().filter(r -> r.statusCode() == 429)).hasSize(1);
        assertThat(upstream.maxConcurrentRequests()).isEqualTo(1);

        // through the quota-share combo: the third goes ahead without a turn (fail-open)
        upstream.clear();
        upstream.setDefault(MockResponse.delayed(Duration.ofMillis(600), MockResponse.completion("ok")));
        assertThat(concurrently(3, "shared")).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200));
        assertThat(upstream.maxConcurrentRequests()).as("one with the turn, one without; the queued one after").isEqualTo(2);

        // quotaShareConcurrencyLimit off: the account's cap does not hold the combo's requests at all
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"quotaShareConcurrencyLimit\":{\"enabled\":false}}").statusCode())
                .isEqualTo(200);
        upstream.clear();
        upstream.setDefault(MockResponse.delayed(Duration.ofMillis(600), MockResponse.completion("ok")));
        assertThat(concurrently(3, "shared")).allSatisfy(r -> assertThat(r.statusCode()).isEqualTo(200));
        assertThat(upstream.maxConcurrentRequests()).isEqualTo(3);
    }

    @Test
    void aBodyDeclaredPauseIsWaitedOutAndALocallyRefused429SaysWhenToComeBack_RQ4_RQ6() throws Exception {
        connection(",\"rateLimitOverrides\":{\"maxWaitMs\":5000}");
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"requestQueue\":{\"maxQueueDepth\":1}}").statusCode())
                .isEqualTo(200);
        upstream.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\",\"retry_after\":2}}"));
        upstream.setDefault(MockResponse.completion("ok"));

        HttpResponse<String> first = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m1", false));
        assertThat(first.statusCode()).isEqualTo(429);

        // the queue is paused for 2 s: one request waits it out, the next finds the queue full
        List<HttpResponse<String>> answers;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                futures.add(pool.submit(() -> sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m1", false))));
            }
            // one waits in the queue, the other has been refused (before the pause ends)
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> queueRow().get("queued").asInt() == 1 && futures.stream().anyMatch(Future::isDone));
            // the pause ends on the server's clock (a test clock here), not by sleeping
            sluice.clock.advance(Duration.ofMillis(2_000));
            answers = new ArrayList<>();
            for (Future<HttpResponse<String>> f : futures) {
                answers.add(f.get(30, TimeUnit.SECONDS));
            }
        }
        assertThat(answers.stream().filter(r -> r.statusCode() == 200)).hasSize(1);
        HttpResponse<String> refused = answers.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        assertThat(read(refused.body()).at("/error/code").asText()).isEqualTo("RATE_LIMIT_QUEUE_FULL");
        // RQ-6: the rebuilt 429 tells the client (and a combo) how long the pause still runs
        assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 2L));
        assertThat(upstream.requestCount()).isEqualTo(2);
    }

    private Future<HttpResponse<String>> chatLater(ExecutorService pool) {
        return pool.submit(() -> sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m1", false)));
    }

    private com.fasterxml.jackson.databind.JsonNode queueRow() {
        return read(sluice.send("GET", "/api/rate-limits", ADMIN_KEY, null).body()).at("/data/0");
    }

    @Test
    void theNextInLineMeetsTheBodyDeclaredPauseNotTheSame429_RQ4() throws Exception {
        connection(",\"maxConcurrent\":1");
        upstream.enqueue(MockResponse.delayed(Duration.ofMillis(500), MockResponse.status(429,
                "{\"error\":{\"message\":\"slow down\",\"retry_after\":2}}")));
        upstream.setDefault(MockResponse.completion("after the pause"));
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<HttpResponse<String>> first = chatLater(pool);
            assertThat(upstream.takeRequest(Duration.ofSeconds(5))).isNotNull();
            Future<HttpResponse<String>> next = chatLater(pool);
            await().atMost(Duration.ofSeconds(5)).until(() -> queueRow().get("queued").asInt() == 1);
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(429);
            // the pause was set before the permit came back: the queued request is still waiting
            assertThat(queueRow().get("queued").asInt()).isEqualTo(1);
            assertThat(queueRow().get("pausedUntil").isNull()).isFalse();
            assertThat(upstream.requestCount()).isEqualTo(1);

            sluice.clock.advance(Duration.ofMillis(2_000));
            assertThat(next.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            assertThat(upstream.requestCount()).isEqualTo(2);
        }
    }

    @Test
    void aRequestThatWaitedIsNotSentToAConnectionThatCooledMeanwhile_QC1() throws Exception {
        connection(",\"maxConcurrent\":1");
        upstream.enqueue(MockResponse.delayed(Duration.ofMillis(500), MockResponse.status(429,
                "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "60")));
        upstream.setDefault(MockResponse.completion("should not be sent"));
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<HttpResponse<String>> first = chatLater(pool);
            assertThat(upstream.takeRequest(Duration.ofSeconds(5))).isNotNull();
            Future<HttpResponse<String>> next = chatLater(pool);
            await().atMost(Duration.ofSeconds(5)).until(() -> queueRow().get("queued").asInt() == 1);
            assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(429);
            HttpResponse<String> held = next.get(10, TimeUnit.SECONDS);
            // the 429 cooled the connection for 60 s while the second request waited for its permit
            assertThat(held.statusCode()).as(held.body()).isEqualTo(503);
            assertThat(read(held.body()).at("/error/code").asText()).isEqualTo("all_targets_cooling_down");
            assertThat(upstream.requestCount()).isEqualTo(1);
        }
    }
}
