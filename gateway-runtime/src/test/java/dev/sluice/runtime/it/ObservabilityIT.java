package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 through a real Sluice and real mock upstreams: {@code GET /metrics} moves with traffic
 * and failures, {@code GET /api/usage} adds up the tokens the mock reported (streamed and not),
 * and the access log has one line per request and no secret.
 */
class ObservabilityIT {

    private static final String MODEL = "mockai/gpt-x";
    /** A stream whose usage comes in a usage-only chunk after the finish, as OpenAI sends it when asked. */
    private static final List<String> STREAM_WITH_USAGE = List.of(
            chunk("{\"role\":\"assistant\",\"content\":\"Hel\"}", "null"),
            chunk("{\"content\":\"lo\"}", "null"),
            chunk("{}", "\"stop\""),
            "{\"id\":\"chatcmpl-u\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-x\",\"choices\":[],"
                    + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":9,\"total_tokens\":29,"
                    + "\"prompt_tokens_details\":{\"cached_tokens\":4},\"completion_tokens_details\":{\"reasoning_tokens\":2}}}",
            "[DONE]");

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream primary;
    MockUpstream secondary;
    String clientKey;
    String clientKeyId;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        primary = MockUpstream.start();
        secondary = MockUpstream.start();
        HttpResponse<String> k = sluice.send("POST", "/api/keys", ADMIN_KEY, "{\"name\":\"metrics-it\"}");
        clientKey = read(k.body()).get("key").asText();
        clientKeyId = read(k.body()).get("id").asText();
    }

    @AfterEach
    void stop() {
        sluice.close();
        primary.close();
        secondary.close();
    }

    private static String chunk(String delta, String finish) {
        return "{\"id\":\"chatcmpl-u\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,"
                + "\"delta\":" + delta + ",\"finish_reason\":" + finish + "}]}";
    }

    /** A 200, a stream, a 503 that fails over, a stream the upstream breaks: returns the request ids. */
    private List<String> traffic() {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
        List<String> ids = new ArrayList<>();
        primary.enqueue(MockResponse.completion("one"));
        ids.add(chat(false, 200));
        primary.enqueue(MockResponse.sse(STREAM_WITH_USAGE, Duration.ZERO));
        ids.add(chat(true, 200));
        primary.enqueue(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        secondary.enqueue(MockResponse.completion("two"));
        ids.add(chat(false, 200));
        return ids;
    }

    private String chat(boolean stream, int expected) {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(MODEL, stream));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expected);
        return r.headers().firstValue("X-Request-Id").orElseThrow();
    }

    private String scrape() {
        HttpResponse<String> r = sluice.send("GET", "/metrics", ADMIN_KEY, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        return r.body();
    }

    @Test
    void metricsMoveWithTrafficFailoverAndStreams_issue18() {
        traffic();
        String port1 = "127.0.0.1:" + java.net.URI.create(primary.baseUrl()).getPort();

        String text = scrape();
        assertThat(text.lines()).contains(
                "sluice_requests_total{api=\"chat_completions\",model=\"gpt-x\",provider=\"mockai\",status=\"200\"} 3.0",
                "sluice_upstream_attempts_total{outcome=\"ok\",provider=\"mockai\"} 3.0",
                "sluice_upstream_attempts_total{outcome=\"server_error\",provider=\"mockai\"} 1.0",
                "sluice_upstream_latency_seconds_count{provider=\"mockai\"} 4",
                "sluice_time_to_first_byte_seconds_count{provider=\"mockai\"} 3",
                "sluice_tokens_total{kind=\"prompt\",model=\"gpt-x\",provider=\"mockai\"} 26.0",
                "sluice_tokens_total{kind=\"completion\",model=\"gpt-x\",provider=\"mockai\"} 19.0",
                "sluice_tokens_total{kind=\"cached\",model=\"gpt-x\",provider=\"mockai\"} 4.0",
                "sluice_tokens_total{kind=\"reasoning\",model=\"gpt-x\",provider=\"mockai\"} 2.0",
                "sluice_breaker_state{host=\"" + port1 + "\",provider=\"mockai\",state=\"CLOSED\"} 1.0",
                "sluice_breaker_state{host=\"" + port1 + "\",provider=\"mockai\",state=\"OPEN\"} 0.0",
                "sluice_model_lockouts{provider=\"mockai\"} 0.0",
                "sluice_connections{provider=\"mockai\",state=\"terminal\"} 0.0",
                "sluice_connections{provider=\"mockai\",state=\"disabled\"} 0.0");
        assertThat(text).contains("sluice_queue_depth{connection=\"").contains("jvm_memory_used_bytes").contains("sluice_queue_wait_seconds");
        // the admin request that scraped, and the key creation, count too
        assertThat(text).contains("sluice_requests_total{api=\"admin\",model=\"none\",provider=\"none\",status=\"201\"}");
        // secrets never appear, nor the client's key
        assertThat(text).doesNotContain(clientKey).doesNotContain("sk-upstream").doesNotContain(ADMIN_KEY);

        // a stream the upstream breaks after its first chunk ends as an abort
        primary.enqueue(MockResponse.stream().event("data: " + chunk("{\"role\":\"assistant\",\"content\":\"x\"}", "null") + "\n\n")
                .thenReset());
        chat(true, 200);
        assertThat(scrape().lines()).contains("sluice_stream_aborts_total{reason=\"upstream_failed\"} 1.0",
                "sluice_requests_total{api=\"chat_completions\",model=\"gpt-x\",provider=\"mockai\",status=\"200\"} 4.0");
    }

    @Test
    void metricsNeedTheAdminKeyUnlessPublic_issue18() throws Exception {
        assertThat(sluice.send("GET", "/metrics", null, null).statusCode()).isEqualTo(401);
        assertThat(sluice.send("GET", "/metrics", clientKey, null).statusCode()).isEqualTo(403);
        sluice.close();
        Path other = dir.resolve("public");
        sluice = new SluiceHarness(other, new SluiceConfig.Observability(true, SluiceConfig.Observability.OFF));
        HttpResponse<String> open = sluice.send("GET", "/metrics", null, null);
        assertThat(open.statusCode()).isEqualTo(200);
        assertThat(open.body()).contains("jvm_memory_used_bytes");
        // counters appear with their first request: the scrape before this one
        assertThat(sluice.send("GET", "/metrics", null, null).body().lines())
                .contains("sluice_requests_total{api=\"metrics\",model=\"none\",provider=\"none\",status=\"200\"} 1.0");
        // off: no access log anywhere
        assertThat(other.resolve("data/logs/access.log")).doesNotExist();
    }

    @Test
    void usageTotalsMatchTheTokensTheMockReported_streamedAndNot_DM3() {
        traffic();
        // an error is a usage row too, without tokens
        sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("nosuch/model", false));
        // a request is counted when its filter finishes, which may be just after its client read the answer; nothing is
        // written to the table yet (issue 26: the flush timer does that every 10 s): the answer includes what is in memory
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(read(sluice.send("GET", "/api/usage", ADMIN_KEY, null).body()).at("/totals/requests").asLong()).isEqualTo(4));

        JsonNode byModel = read(sluice.send("GET", "/api/usage?groupBy=model", ADMIN_KEY, null).body());
        assertThat(byModel.at("/totals/requests").asLong()).isEqualTo(4);
        assertThat(byModel.at("/totals/errors").asLong()).isEqualTo(1);
        assertThat(byModel.at("/totals/promptTokens").asLong()).isEqualTo(26);
        assertThat(byModel.at("/totals/completionTokens").asLong()).isEqualTo(19);
        assertThat(byModel.at("/totals/cachedTokens").asLong()).isEqualTo(4);
        assertThat(byModel.at("/totals/reasoningTokens").asLong()).isEqualTo(2);
        assertThat(byModel.at("/totals/attempts").asLong()).isEqualTo(4);
        JsonNode gptx = group(byModel, "mockai/gpt-x");
        assertThat(gptx.get("requests").asLong()).isEqualTo(3);
        assertThat(gptx.get("promptTokens").asLong()).isEqualTo(26);
        assertThat(gptx.get("costUsd").asDouble()).isZero();
        assertThat(gptx.get("unpricedTokens").asLong()).isEqualTo(45);

        JsonNode byKey = read(sluice.send("GET", "/api/usage?groupBy=key", ADMIN_KEY, null).body());
        assertThat(group(byKey, clientKeyId).get("requests").asLong()).isEqualTo(4);

        // prices turn tokens into cost: (26-4) x 2 + 4 x 1 + 19 x 10 = 238 USD per million
        HttpResponse<String> patched = sluice.send("PATCH", "/api/settings", ADMIN_KEY,
                "{\"modelPrices\":{\"mockai/gpt-x\":{\"input\":2,\"output\":10,\"cachedInput\":1}}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        JsonNode priced = read(sluice.send("GET", "/api/usage?groupBy=provider", ADMIN_KEY, null).body());
        assertThat(group(priced, "mockai").get("costUsd").asDouble()).isEqualTo(0.000238);
        assertThat(priced.at("/totals/unpricedTokens").asLong()).isZero();

        assertThat(sluice.send("GET", "/api/usage?groupBy=color", ADMIN_KEY, null).statusCode()).isEqualTo(400);
        assertThat(sluice.send("GET", "/api/usage", clientKey, null).statusCode()).isEqualTo(403);
        JsonNode none = read(sluice.send("GET", "/api/usage?from=2000-01-01&to=2000-01-02", ADMIN_KEY, null).body());
        assertThat(none.at("/totals/requests").asLong()).isZero();
    }

    @Test
    void usageStillInMemoryIsWrittenAtShutdownAndCountedOnceAfterARestart_issue26() {
        traffic();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(read(sluice.send("GET", "/api/usage", ADMIN_KEY, null).body()).at("/totals/requests").asLong()).isEqualTo(3));
        // a flush moves the counts from memory to the table: the answer does not change
        assertThat(sluice.server.telemetry().usage().flush()).isTrue();
        assertThat(read(sluice.send("GET", "/api/usage", ADMIN_KEY, null).body()).at("/totals/requests").asLong()).isEqualTo(3);
        primary.enqueue(MockResponse.completion("three"));
        chat(false, 200);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(read(sluice.send("GET", "/api/usage", ADMIN_KEY, null).body()).at("/totals/requests").asLong()).isEqualTo(4));

        sluice.close();
        sluice = new SluiceHarness(dir);
        JsonNode after = read(sluice.send("GET", "/api/usage?groupBy=key", ADMIN_KEY, null).body());
        assertThat(after.at("/totals/requests").asLong()).isEqualTo(4);
        assertThat(after.at("/totals/promptTokens").asLong()).isEqualTo(26 + 3);
        assertThat(group(after, clientKeyId).get("requests").asLong()).isEqualTo(4);
    }

    private static JsonNode group(JsonNode usage, String name) {
        for (JsonNode g : usage.get("groups")) {
            if (name.equals(g.path("group").asText(null))) {
                return g;
            }
        }
        throw new AssertionError("no group " + name + " in " + usage);
    }

    @Test
    void streamsAskUpstreamsForUsageWithoutChangingWhatTheClientReceives_issue18() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.sse(STREAM_WITH_USAGE, Duration.ZERO));
        HttpResponse<String> notAsked = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(MODEL, true));
        RecordedRequest up = primary.takeRequest(Duration.ofSeconds(5));
        assertThat(read(up.body()).at("/stream_options/include_usage").asBoolean()).isTrue();
        assertThat(notAsked.body()).contains("\"content\":\"Hel\"").doesNotContain("\"usage\"").endsWith("data: [DONE]\n\n");

        primary.enqueue(MockResponse.sse(STREAM_WITH_USAGE, Duration.ZERO));
        HttpResponse<String> asked = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"" + MODEL + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(asked.body()).contains("\"prompt_tokens\":20");

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            JsonNode usage = read(sluice.send("GET", "/api/usage", ADMIN_KEY, null).body());
            assertThat(usage.at("/totals/promptTokens").asLong()).isEqualTo(40);
            assertThat(usage.at("/totals/completionTokens").asLong()).isEqualTo(18);
        });
    }

    @Test
    void accessLogHasOneLinePerRequestAndNoSecret_issue18() throws Exception {
        List<String> ids = new ArrayList<>(traffic());
        HttpResponse<String> unauthorized = sluice.send("POST", "/v1/chat/completions", "sk-wrong-key-123", chatBody(MODEL, false));
        assertThat(unauthorized.statusCode()).isEqualTo(401);
        ids.add(unauthorized.headers().firstValue("X-Request-Id").orElseThrow());
        HttpResponse<String> unknown = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("nosuch/model", false));
        ids.add(unknown.headers().firstValue("X-Request-Id").orElseThrow());
        sluice.send("GET", "/metrics", ADMIN_KEY, null);
        sluice.send("GET", "/health/live", null, null);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            sluice.server.telemetry().accessLog().flush(Duration.ofSeconds(5));
            List<String> written = Files.readAllLines(dir.resolve("data/logs/access.log"));
            for (String id : ids) {
                assertThat(written.stream().filter(l -> l.contains("\"" + id + "\"")).count()).as(id).isEqualTo(1);
            }
        });
        List<String> lines = Files.readAllLines(dir.resolve("data/logs/access.log"));
        // probes and scrapes stay out of it; admin calls (key, connections) are in it
        assertThat(lines).noneMatch(l -> l.contains("\"/metrics\"") || l.contains("/health/live"));
        assertThat(lines).anyMatch(l -> l.contains("\"path\":\"/api/keys\""));
        assertThat(String.join("\n", lines)).doesNotContain(clientKey).doesNotContain("sk-upstream").doesNotContain(ADMIN_KEY)
                .doesNotContain("sk-wrong-key-123");

        JsonNode failover = line(lines, ids.get(2));
        assertThat(failover.get("keyId").asText()).isEqualTo(clientKeyId);
        assertThat(failover.get("api").asText()).isEqualTo("chat_completions");
        assertThat(failover.get("model").asText()).isEqualTo(MODEL);
        assertThat(failover.get("provider").asText()).isEqualTo("mockai");
        assertThat(failover.get("status").asInt()).isEqualTo(200);
        assertThat(failover.get("attempts").asInt()).isEqualTo(2);
        assertThat(failover.get("latencyMs").asLong()).isNotNegative();
        assertThat(failover.at("/tokens/prompt").asLong()).isEqualTo(3);
        JsonNode stream = line(lines, ids.get(1));
        assertThat(stream.get("stream").asText()).isEqualTo("completed");
        assertThat(stream.at("/tokens/reasoning").asLong()).isEqualTo(2);
        JsonNode denied = line(lines, ids.get(3));
        assertThat(denied.get("status").asInt()).isEqualTo(401);
        assertThat(denied.has("keyId")).isFalse();
        assertThat(denied.get("errorCode").asText()).isEqualTo("invalid_api_key");
        JsonNode notFound = line(lines, ids.get(4));
        assertThat(notFound.get("status").asInt()).isEqualTo(404);
        assertThat(notFound.get("model").asText()).isEqualTo("nosuch/model");
        assertThat(notFound.get("attempts").asInt()).isZero();
    }

    private static JsonNode line(List<String> lines, String requestId) {
        return read(lines.stream().filter(l -> l.contains("\"" + requestId + "\"")).findFirst().orElseThrow());
    }
}
