package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Combos through a real server (SPEC §13 CO-1, CO-2, CO-5; API-2). */
class CombosIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream a;
    MockUpstream b;
    String clientKey;
    String connA;
    String connB;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        a = MockUpstream.start();
        b = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
        connA = sluice.addOpenAiCompatible("alpha", a.baseUrl() + "/v1", 1);
        connB = sluice.addOpenAiCompatible("beta", b.baseUrl() + "/v1", 1);
    }

    @AfterEach
    void stop() {
        sluice.close();
        a.close();
        b.close();
    }

    private void combo(String json) {
        HttpResponse<String> r = sluice.send("POST", "/api/combos", ADMIN_KEY, json);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private HttpResponse<String> chat(String model, boolean stream) {
        return sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(model, stream));
    }

    private JsonNode breakerOf(String provider) {
        for (JsonNode br : read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body()).get("providerBreakers")) {
            if (br.get("provider").asText().equals(provider)) {
                return br;
            }
        }
        throw new AssertionError(provider);
    }

    @Test
    void aFailingFirstTargetFallsBackToTheSecondAndItsBreakerCounts_CO1() {
        combo("{\"name\":\"duo\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        b.setDefault(MockResponse.completion("from beta"));

        HttpResponse<String> r = chat("duo", false);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).at("/choices/0/message/content").asText()).isEqualTo("from beta");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(connB);
        assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("beta");
        assertThat(r.headers().firstValue("X-Sluice-Model")).contains("m2");
        assertThat(breakerOf("alpha").get("failureCount").asInt()).isEqualTo(1);
        assertThat(a.requests().get(0).body()).contains("\"model\":\"m1\"");
    }

    @Test
    void aStreamingRequestFallsBackBeforeTheFirstByte_CO1() {
        combo("{\"name\":\"duo\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.enqueue(MockResponse.reset());
        b.setDefault(MockResponse.chatStream(List.of("hel", "lo"), Duration.ZERO));
        HttpResponse<String> r = chat("duo", true);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("hel").contains("lo").contains("data: [DONE]");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(connB);
    }

    @Test
    void aRequestErrorStopsTheComboWithTheUpstreamAnswer_CO1() {
        combo("{\"name\":\"duo\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.enqueue(MockResponse.status(400, "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\"}}"));
        HttpResponse<String> r = chat("duo", false);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(b.requestCount()).isZero();
    }

    @Test
    void everyTargetInAShortRateLimitBeyondTheWaitAnswers429WithDiagnostics_CO4() {
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"comboCooldownWait\":{\"enabled\":false}}").statusCode())
                .isEqualTo(200);
        combo("{\"name\":\"duo\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "20"));
        b.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "9"));
        assertThat(chat("duo", false).statusCode()).isEqualTo(429);
        HttpResponse<String> r = chat("duo", false);
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("Retry-After")).contains("9");
        JsonNode error = read(r.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo("rate_limit_error");
        assertThat(error.get("retry_after").asLong()).isEqualTo(9);
        JsonNode excluded = error.at("/diagnostics/excluded");
        assertThat(excluded).hasSize(2);
        assertThat(excluded.get(0).get("target").asText()).isEqualTo("alpha/m1");
        assertThat(excluded.get(0).get("reason").asText()).isEqualTo("unavailable");
        assertThat(excluded.get(1).get("target").asText()).isEqualTo("beta/m2");
        assertThat(a.requestCount() + b.requestCount()).isEqualTo(2);
    }

    @Test
    void everyTargetBehindAnOpenBreakerAnswers503WithTheTargetsAndTheirMechanisms_CO5() {
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY,
                "{\"circuitBreaker\":{\"apikey\":{\"failureThreshold\":1,\"degradationThreshold\":1}}}").statusCode()).isEqualTo(200);
        combo("{\"name\":\"duo\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"down\"}}"));
        b.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"down\"}}"));
        assertThat(chat("duo", false).statusCode()).isEqualTo(503);
        HttpResponse<String> r = chat("duo", false);
        assertThat(r.statusCode()).isEqualTo(503);
        JsonNode body = read(r.body());
        assertThat(body.at("/error/code").asText()).isEqualTo("all_targets_cooling_down");
        assertThat(r.headers().firstValue("Retry-After")).contains("30");
        assertThat(body.at("/error/diagnostics/excluded").findValuesAsText("reason")).containsOnly("circuit_open");
        assertThat(body.at("/error/diagnostics/excluded").findValuesAsText("target")).containsExactly("alpha/m1", "beta/m2");
        assertThat(a.requestCount() + b.requestCount()).isEqualTo(2);
    }

    @Test
    void aComboWhoseTargetsResolveToNothingIs404NoExecutableTargets_CO5() {
        combo("{\"name\":\"ghost\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"nosuch/m\"}]}");
        HttpResponse<String> r = chat("ghost", false);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("no_executable_targets");
    }

    @Test
    void roundRobinSpreadsRequestsInTargetOrder_CO2() {
        combo("{\"name\":\"rr\",\"strategy\":\"round-robin\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.setDefault(MockResponse.completion("a"));
        b.setDefault(MockResponse.completion("b"));
        StringBuilder seen = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            seen.append(read(chat("rr", false).body()).at("/choices/0/message/content").asText());
        }
        assertThat(seen.toString()).isEqualTo("abab");
    }

    @Test
    void aComboDeletedAndCreatedAgainStartsFresh_CO2() {
        String rr = "{\"name\":\"rr\",\"strategy\":\"round-robin\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}";
        combo(rr);
        a.setDefault(MockResponse.completion("a"));
        b.setDefault(MockResponse.completion("b"));
        assertThat(read(chat("rr", false).body()).at("/choices/0/message/content").asText()).isEqualTo("a");
        assertThat(sluice.send("DELETE", "/api/combos/rr", ADMIN_KEY, null).statusCode()).isEqualTo(200);
        combo(rr);
        // the old combo's round-robin position is gone with it
        assertThat(read(chat("rr", false).body()).at("/choices/0/message/content").asText()).isEqualTo("a");
        assertThat(read(chat("rr", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b");
    }

    @Test
    void p2cCountsAStreamAsInFlightUntilItEnds_CO2() throws Exception {
        combo("{\"name\":\"p\",\"strategy\":\"p2c\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        b.setDefault(MockResponse.completion("b"));
        // alpha: one 429 (its connection cools, beta serves), so beta has more uses once alpha is back
        a.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "60"));
        assertThat(read(chat("p", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b");
        assertThat(read(chat("p", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b");
        assertThat(sluice.send("POST", "/api/resilience/cooldowns", ADMIN_KEY, "{\"all\":true}").statusCode()).isEqualTo(200);
        // uses alpha 1, beta 2: the slow stream goes to alpha
        a.enqueue(MockResponse.chatStream(List.of("a1", "a2", "a3", "a4"), Duration.ofMillis(500)));
        a.setDefault(MockResponse.completion("a"));
        var stream = java.util.concurrent.CompletableFuture.supplyAsync(() -> chat("p", true));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (a.requestCount() < 2 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(a.requestCount()).isEqualTo(2);
        // uses now 2:2; alpha's stream still runs, so it is the more loaded and beta goes first
        assertThat(read(chat("p", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b");
        assertThat(stream.get(10, java.util.concurrent.TimeUnit.SECONDS).body()).contains("a4");
        // stream over: alpha is no longer in flight; uses 2:3, so alpha is next
        assertThat(read(chat("p", false).body()).at("/choices/0/message/content").asText()).isEqualTo("a");
    }

    @Test
    void aConnectionExhaustedByAConnectionScopedQuotaRuleIsSkippedByTheRestOfTheRequest_CO6() {
        // an operator rule (honoured scope, ER-5) and a connection that never cools: only CO-6 keeps the request off it
        assertThat(sluice.send("PATCH", "/api/settings", ADMIN_KEY, "{\"providerErrorRules\":[{\"provider\":\"alpha\",\"status\":429,"
                + "\"scope\":\"connection\"}]}").statusCode()).isEqualTo(200);
        assertThat(sluice.send("PATCH", "/api/providers/" + connA, ADMIN_KEY, "{\"disableCooling\":true}").statusCode()).isEqualTo(200);
        combo("{\"name\":\"pins\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\",\"connectionId\":\"" + connA + "\"},"
                + "{\"model\":\"alpha/m2\",\"connectionId\":\"" + connA + "\"},{\"model\":\"beta/m3\"}]}");
        a.setDefault(MockResponse.status(429, "{\"error\":{\"message\":\"quota used up\"}}"));
        b.setDefault(MockResponse.completion("from beta"));

        HttpResponse<String> r = chat("pins", false);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).at("/choices/0/message/content").asText()).isEqualTo("from beta");
        assertThat(a.requestCount()).as("alpha/m2 names the exhausted connection: skipped").isEqualTo(1);
    }

    @Test
    void aTargetPinnedToAConnectionUsesOnlyThatConnection_CO1() {
        String second = sluice.addOpenAiCompatible("alpha", b.baseUrl() + "/v1", 2);
        combo("{\"name\":\"pinned\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\",\"connectionId\":\"" + second + "\"}]}");
        b.setDefault(MockResponse.completion("pinned"));
        HttpResponse<String> r = chat("pinned", false);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(second);
        assertThat(a.requestCount()).isZero();
    }

    @Test
    void combosAreListedAsModelsAndServeAnthropicClients_API2_API3() {
        combo("{\"name\":\"duo\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        JsonNode models = read(sluice.send("GET", "/v1/models", clientKey, null).body()).get("data");
        assertThat(models.findValuesAsText("id")).contains("duo");
        a.setDefault(MockResponse.completion("hi from alpha"));
        HttpResponse<String> r = sluice.send("POST", "/v1/messages", clientKey,
                "{\"model\":\"duo\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(read(r.body()).at("/content/0/text").asText()).isEqualTo("hi from alpha");
    }

    @Test
    void resetAwareRoutingPrefersTheTargetWhoseAnnouncedQuotaResetsSoonest_CO2_OF4() {
        combo("{\"name\":\"ra\",\"strategy\":\"reset-aware\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.enqueue(MockResponse.completion("a").header("x-ratelimit-limit-requests", "100").header("x-ratelimit-remaining-requests", "50")
                .header("x-ratelimit-reset-requests", "60s"));
        a.enqueue(MockResponse.status(503, "{\"error\":{\"message\":\"down\"}}"));
        b.enqueue(MockResponse.completion("b").header("x-ratelimit-limit-requests", "100").header("x-ratelimit-remaining-requests", "50")
                .header("x-ratelimit-reset-requests", "5s"));
        b.setDefault(MockResponse.completion("b again"));
        // nothing known yet: priority order; the answers announce each key's reset
        assertThat(read(chat("ra", false).body()).at("/choices/0/message/content").asText()).isEqualTo("a");
        assertThat(read(chat("ra", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b");
        // beta's quota resets in 5 s, alpha's in 60 s: beta first
        assertThat(read(chat("ra", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b again");
        assertThat(a.requestCount()).isEqualTo(2);
    }

    private JsonNode explain(String combo) {
        HttpResponse<String> r = sluice.send("POST", "/api/combos/" + combo + "/explain", ADMIN_KEY,
                "{\"model\":\"" + combo + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body());
    }

    private static java.util.List<String> models(JsonNode explanation) {
        java.util.List<String> out = new java.util.ArrayList<>();
        explanation.get("order").forEach(t -> out.add(t.get("model").asText()));
        return out;
    }

    @Test
    void explainShowsTheNextOrderWithoutTakingARoundRobinTurnOrCallingAnUpstream_issue34() {
        combo("{\"name\":\"rr\",\"strategy\":\"round-robin\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");

        JsonNode first = explain("rr");
        assertThat(models(first)).containsExactly("alpha/m1", "beta/m2");
        assertThat(models(explain("rr"))).containsExactly("alpha/m1", "beta/m2");
        assertThat(first.at("/order/0/startsOn").asText()).isEqualTo(connA);
        assertThat(first.at("/order/0/figures/uses").asLong()).isZero();
        assertThat(first.get("strategyFound").asBoolean()).isTrue();
        assertThat(a.requestCount() + b.requestCount()).isZero();

        assertThat(chat("rr", false).statusCode()).isEqualTo(200);
        assertThat(a.requestCount()).isEqualTo(1);
        JsonNode after = explain("rr");
        assertThat(models(after)).containsExactly("beta/m2", "alpha/m1");
        assertThat(after.at("/order/1/figures/uses").asLong()).isEqualTo(1);
        assertThat(a.requestCount() + b.requestCount()).isEqualTo(1);
    }

    @Test
    void explainNamesWhatIsHeldBackAndRefusesAnotherModel_issue34() {
        combo("{\"name\":\"pair\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        a.setDefault(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "120"));
        assertThat(chat("pair", false).statusCode()).isEqualTo(200);

        JsonNode e = explain("pair");
        assertThat(models(e)).containsExactly("beta/m2");
        assertThat(e.at("/heldBack/0/connectionId").asText()).isEqualTo(connA);
        assertThat(e.at("/heldBack/0/model").asText()).isEqualTo("alpha/m1");
        assertThat(e.at("/heldBack/0/reason").asText()).isEqualTo("unavailable");
        assertThat(e.at("/heldBack/0/remainingMs").asLong()).isPositive();

        HttpResponse<String> wrong = sluice.send("POST", "/api/combos/pair/explain", ADMIN_KEY, "{\"model\":\"alpha/m1\"}");
        assertThat(wrong.statusCode()).isEqualTo(400);
        assertThat(read(wrong.body()).at("/error/param").asText()).isEqualTo("model");
        assertThat(sluice.send("POST", "/api/combos/none/explain", ADMIN_KEY, "{}").statusCode()).isEqualTo(404);
        assertThat(sluice.send("POST", "/api/combos/pair/explain", clientKey, "{}").statusCode()).isEqualTo(403);
    }

    @Test
    void resetWindowStartsWhereTheAnnouncedWeeklyWindowEndsSoonest_issue34() {
        // both answer with Codex's window headers: alpha's weekly window ends in 5 days, beta's in 1
        a.setDefault(MockResponse.completion("a").header("x-codex-primary-window-minutes", "10080")
                .header("x-codex-primary-reset-after-seconds", "432000"));
        b.setDefault(MockResponse.completion("b").header("x-codex-secondary-window-minutes", "10080")
                .header("x-codex-secondary-reset-after-seconds", "86400").header("x-codex-primary-window-minutes", "300")
                .header("x-codex-primary-reset-after-seconds", "60"));
        combo("{\"name\":\"weekly\",\"strategy\":\"weekly-reset\",\"targets\":[{\"model\":\"alpha/m1\"},{\"model\":\"beta/m2\"}]}");
        // before anything is known: no windows, priority (list) order
        assertThat(models(explain("weekly"))).containsExactly("alpha/m1", "beta/m2");
        assertThat(read(chat("weekly", false).body()).at("/choices/0/message/content").asText()).isEqualTo("a");
        assertThat(sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("beta/m2", false)).statusCode()).isEqualTo(200);

        JsonNode e = explain("weekly");
        assertThat(models(e)).containsExactly("beta/m2", "alpha/m1");
        assertThat(e.at("/order/0/figures/quotaWindowResetAt").asLong()).isEqualTo(sluice.clock.millis() + 86_400_000L);
        assertThat(read(chat("weekly", false).body()).at("/choices/0/message/content").asText()).isEqualTo("b");
    }

    private static String conversation(String first, int turns) {
        StringBuilder m = new StringBuilder("[{\"role\":\"system\",\"content\":\"You are a coding agent.\"},{\"role\":\"user\",\"content\":\""
                + first + "\"}");
        for (int t = 1; t < turns; t++) {
            m.append(",{\"role\":\"assistant\",\"content\":\"ok ").append(t).append("\"},{\"role\":\"user\",\"content\":\"go on ")
                    .append(t).append("\"}");
        }
        return m.append(']').toString();
    }

    @Test
    void cacheOptimizedKeepsAConversationOnOneTargetAndAddingATargetMovesOnlyItsShare_issue34() {
        MockUpstream c = MockUpstream.start();
        try {
            sluice.addOpenAiCompatible("gamma", c.baseUrl() + "/v1", 1);
            a.setDefault(MockResponse.completion("a"));
            b.setDefault(MockResponse.completion("b"));
            c.setDefault(MockResponse.completion("c"));
            combo("{\"name\":\"cached\",\"strategy\":\"cache-optimized\",\"targets\":[{\"model\":\"alpha/m\"},{\"model\":\"beta/m\"}]}");
            // every turn of a conversation is served by the same upstream
            java.util.Set<String> servedBy = new java.util.HashSet<>();
            for (int conv = 0; conv < 6; conv++) {
                java.util.Set<String> answers = new java.util.HashSet<>();
                for (int turn = 1; turn <= 3; turn++) {
                    HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey,
                            "{\"model\":\"cached\",\"messages\":" + conversation("task " + conv, turn) + "}");
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    answers.add(read(r.body()).at("/choices/0/message/content").asText());
                }
                assertThat(answers).as("conversation " + conv).hasSize(1);
                servedBy.addAll(answers);
            }
            assertThat(servedBy).as("six conversations spread over both targets").containsExactlyInAnyOrder("a", "b");

            // rebalancing, seen through explain (no upstream call): 300 first messages, then a third target
            int n = 300;
            String[] before = new String[n];
            for (int i = 0; i < n; i++) {
                before[i] = explainStart("cached", "prefix " + i);
            }
            HttpResponse<String> put = sluice.send("PUT", "/api/combos/cached", ADMIN_KEY, "{\"strategy\":\"cache-optimized\",\"targets\":"
                    + "[{\"model\":\"alpha/m\"},{\"model\":\"beta/m\"},{\"model\":\"gamma/m\"}]}");
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            int moved = 0;
            for (int i = 0; i < n; i++) {
                String after = explainStart("cached", "prefix " + i);
                if (!after.equals(before[i])) {
                    moved++;
                    assertThat(after).isEqualTo("gamma/m");
                }
            }
            assertThat(moved).isBetween(1, (int) (n * (1.0 / 3 + 0.05)));
        } finally {
            c.close();
        }
    }

    private String explainStart(String combo, String first) {
        HttpResponse<String> r = sluice.send("POST", "/api/combos/" + combo + "/explain", ADMIN_KEY,
                "{\"model\":\"" + combo + "\",\"messages\":" + conversation(first, 1) + "}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body()).at("/order/0/model").asText();
    }
}
