package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.SseEvents;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream watchdogs through the built distribution (SPEC §15), their timers set by the
 * environment names ST-0 gives, against mock upstreams on 127.0.0.1 playing each stream shape: an
 * OpenAI-compatible connection (translated path) and the shipped Claude plugin's connections (the
 * Anthropic stream passed through byte for byte).
 */
class StreamWatchdogsEndToEndIT {

    private static final String CLAUDE_MODEL = "claude-sonnet-4-5";

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
        Map<String, String> env = SluiceProcess.env(work.resolve("data"), adminKey);
        env.put("STREAM_READINESS_TIMEOUT_MS", "1500");
        env.put("STREAM_IDLE_TIMEOUT_MS", "1500");
        env.put("SSE_HEARTBEAT_INTERVAL_MS", "1000");
        client = new SluiceClient(servers.start(home, env));
        clientKey = client.createKey(adminKey, "streams");
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
    }

    private HttpResponse<String> messages(boolean stream) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("max_tokens", 256);
        body.put("stream", stream);
        body.put("messages", List.of(Map.of("role", "user", "content", "hi")));
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(client.base().resolve("/v1/messages")).timeout(Duration.ofSeconds(20))
                    .header("x-api-key", clientKey).header("anthropic-version", "2023-06-01").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(SluiceClient.toJson(body))).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private JsonNode streams() {
        return client.expect(client.get("/api/monitoring/health", adminKey), 200).get("streams");
    }

    @Test
    void anOpenAiCompatibleStreamOfCommentsOnlyIsA504ReadinessTimeout_ST0() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        first.setDefault(MockResponse.stream().event(SseEvents.openAiRole()).thenRepeat(Duration.ofMillis(200), SseEvents.comment("x")));

        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", true));

        JsonNode error = client.expect(r, 504).get("error");
        assertThat(error.get("code").asText()).isEqualTo("STREAM_READINESS_TIMEOUT");
        assertThat(streams().get("readiness_timeout").asInt()).isEqualTo(1);
    }

    @Test
    void anOpenAiCompatibleStreamThatStallsEndsWithTheStallErrorAndDone_ST1() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        first.setDefault(MockResponse.stream().event(SseEvents.openAiDelta("Hel")).thenHold());

        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"Hel\"").contains(": keep-alive").contains("\"code\":\"STREAM_STALL_TIMEOUT\"")
                .endsWith("data: [DONE]\n\n");
    }

    @Test
    void aClaudeStreamPassedThroughThatStallsEndsWithAnErrorEventAndKeepsItsBytes_ST1() throws Exception {
        client.createConnection(adminKey, "claude", "sk-ant-test-0123456789", first.baseUrl());
        first.setDefault(MockResponse.stream().event(SseEvents.messageStart(CLAUDE_MODEL)).event(SseEvents.textBlockStart(0))
                .event(SseEvents.textDelta(0, "Hello")).thenHold());

        HttpResponse<String> r = messages(true);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith(SseEvents.messageStart(CLAUDE_MODEL) + SseEvents.textBlockStart(0) + SseEvents.textDelta(0, "Hello"))
                .contains("event: ping").contains("\"code\":\"STREAM_STALL_TIMEOUT\"");
        assertThat(first.awaitClientGone(first.takeRequest(Duration.ofSeconds(5)), Duration.ofSeconds(5)))
                .as("the upstream request was ended").isTrue();
    }

    @Test
    void aClaudeStreamThatOnlyPingsFallsOverToTheNextConnectionBeforeAnyByteReachesTheClient_ST0() throws Exception {
        client.expect(client.post("/api/providers", adminKey, Map.of("provider", "claude", "authType", "apikey",
                "apiKey", "sk-ant-first-0123456789", "baseUrl", first.baseUrl(), "priority", 1)), 201);
        String good = client.expect(client.post("/api/providers", adminKey, Map.of("provider", "claude", "authType", "apikey",
                "apiKey", "sk-ant-second-0123456789", "baseUrl", second.baseUrl(), "priority", 2)), 201).get("id").asText();
        first.setDefault(MockResponse.stream().event(SseEvents.messageStart(CLAUDE_MODEL)).thenRepeat(Duration.ofMillis(200),
                SseEvents.ping()));
        String answer = SseEvents.messageStart(CLAUDE_MODEL) + SseEvents.textBlockStart(0) + SseEvents.textDelta(0, "from the second")
                + SseEvents.contentBlockStop(0) + SseEvents.messageDelta("end_turn") + SseEvents.messageStop();
        second.setDefault(MockResponse.stream().event(answer).thenEnd());

        HttpResponse<String> r = messages(true);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).hasValue(good);
        assertThat(r.body()).isEqualTo(answer);
    }

    @Test
    void aClaudeOverloadedErrorRightAfterMessageStartFallsOverToo_ST0() throws Exception {
        client.expect(client.post("/api/providers", adminKey, Map.of("provider", "claude", "authType", "apikey",
                "apiKey", "sk-ant-first-0123456789", "baseUrl", first.baseUrl(), "priority", 1)), 201);
        client.expect(client.post("/api/providers", adminKey, Map.of("provider", "claude", "authType", "apikey",
                "apiKey", "sk-ant-second-0123456789", "baseUrl", second.baseUrl(), "priority", 2)), 201);
        first.setDefault(MockResponse.stream().event(SseEvents.messageStart(CLAUDE_MODEL)).event(SseEvents.event("error",
                "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")).thenEnd());
        String answer = SseEvents.messageStart(CLAUDE_MODEL) + SseEvents.textBlockStart(0) + SseEvents.textDelta(0, "ok")
                + SseEvents.contentBlockStop(0) + SseEvents.messageDelta("end_turn") + SseEvents.messageStop();
        second.setDefault(MockResponse.stream().event(answer).thenEnd());

        HttpResponse<String> r = messages(true);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(answer);
    }

    @Test
    void anOpenAiCompatibleStreamThatEndsBeforeDataIsReAttemptedThenA502EarlyEof_ST0() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        first.setDefault(MockResponse.stream().event(SseEvents.openAiRole()).thenClose());

        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", true));

        JsonNode error = client.expect(r, 502).get("error");
        assertThat(error.get("code").asText()).isEqualTo("STREAM_EARLY_EOF");
        assertThat(first.requestCount()).as("one re-attempt on the same connection").isEqualTo(2);
    }

    @Test
    void heartbeatsAfterContentDoNotKeepAStreamAlive_ST1() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        first.setDefault(MockResponse.stream().event(SseEvents.openAiDelta("Hi")).thenRepeat(Duration.ofMillis(200),
                SseEvents.comment("keep-alive")));

        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"Hi\"").contains("\"code\":\"STREAM_STALL_TIMEOUT\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void reasoningPausesAndASilenceInsideTheBudgetComplete_ST1() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        MockResponse.StreamBuilder s = MockResponse.stream().event(SseEvents.openAiRole()).event(SseEvents.openAiReasoning("Let me"));
        for (int i = 0; i < 4; i++) {
            s = s.pause(Duration.ofMillis(900)).event(SseEvents.openAiReasoning(""));
        }
        // then a silence of 1.2 s, inside the 1.5 s budget
        first.setDefault(s.event(SseEvents.openAiDelta("Answer")).pause(Duration.ofMillis(1_200)).event(SseEvents.openAiDelta("!"))
                .event(SseEvents.openAiFinish("stop")).event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"Answer\"").contains("\"!\"").doesNotContain("STREAM_STALL_TIMEOUT").endsWith("data: [DONE]\n\n");
        assertThat(streams().get("completed").asInt()).isEqualTo(1);
    }

    @Test
    void aTrickleIsEndedByTheThroughputWatchdogWhenOperatorsTurnItOn_ST2() {
        client.expect(client.patch("/api/resilience", adminKey, Map.of("streamRecovery", Map.of("idleTimeoutMs", 60_000,
                "throughputWatchdog", Map.of("enabled", true, "windowMs", 5_000, "warmupMs", 0, "minBytesPerSecond", 100,
                        "minMeasurableBytes", 0)))), 200);
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        first.setDefault(MockResponse.stream().event(SseEvents.openAiRole()).thenRepeat(Duration.ofMillis(250), SseEvents.openAiDelta("ab")));

        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"code\":\"STREAM_THROUGHPUT_TOO_LOW\"").endsWith("data: [DONE]\n\n");
    }
}
