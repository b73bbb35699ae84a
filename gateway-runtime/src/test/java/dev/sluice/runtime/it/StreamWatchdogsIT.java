package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.SseEvents;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream watchdogs through a real server and a mock upstream that plays each stream shape
 * (SPEC §15 ST-0, ST-1, CC-5, BO-6, BO-7): readiness, early EOF, stall despite heartbeats,
 * keep-alives through a silence inside the budget, the first content event relayed without waiting
 * for the upstream's next one, the client leaving, and every admission
 * finalized ({@code GET /api/rate-limits} shows nothing running on a {@code maxConcurrent: 1}
 * connection afterwards).
 */
class StreamWatchdogsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String clientKey;
    String connectionId;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
        HttpResponse<String> r = sluice.send("POST", "/api/providers", ADMIN_KEY, "{\"provider\":\"alpha\",\"authType\":\"apikey\","
                + "\"apiKey\":\"sk-upstream-alpha-abcdef\",\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"maxConcurrent\":1}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        connectionId = read(r.body()).get("id").asText();
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private void streamRecovery(String json) {
        HttpResponse<String> r = sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"streamRecovery\":" + json + "}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private HttpResponse<String> chat(boolean stream) {
        return sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m", stream));
    }

    /** A streamed chat request to alpha/m, answered 200; its body is read by the caller. */
    private HttpResponse<InputStream> streamed(HttpClient http) throws Exception {
        HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(URI.create(sluice.base() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + clientKey).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("alpha/m", true))).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }

    private JsonNode health() {
        return read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body());
    }

    private void nothingRunningAndNothingCooled() {
        JsonNode limits = read(sluice.send("GET", "/api/rate-limits", ADMIN_KEY, null).body()).get("data").get(0);
        assertThat(limits.get("running").asInt()).as("every admission was finalized").isZero();
        assertThat(limits.get("queued").asInt()).isZero();
        JsonNode conn = read(sluice.send("GET", "/api/providers/" + connectionId, ADMIN_KEY, null).body());
        assertThat(conn.get("testStatus").asText()).isEqualTo("active");
        assertThat(conn.get("rateLimitedUntil").isNull()).isTrue();
    }

    @Test
    void commentsOnlyTimeOutAtTheReadinessGateAs504AndCoolNothing_ST0_BO7() {
        streamRecovery("{\"readinessTimeoutMs\":1000}");
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).thenRepeat(Duration.ofMillis(100), SseEvents.comment("keep-alive")));

        long t0 = System.nanoTime();
        HttpResponse<String> r = chat(true);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;

        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(read(r.body()).get("error").get("code").asText()).isEqualTo("STREAM_READINESS_TIMEOUT");
        assertThat(tookMs).isBetween(1_000L, 10_000L);
        assertThat(health().get("providerBreakers").get(0).get("failureCount").asInt()).isZero();
        assertThat(health().get("streams").get("readiness_timeout").asInt()).isEqualTo(1);
        nothingRunningAndNothingCooled();
    }

    @Test
    void anEarlyEofIsReAttemptedOnceOnTheSameConnection_ST0() {
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).thenEnd());
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).event(SseEvents.openAiDelta("second try"))
                .event(SseEvents.openAiFinish("stop")).event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = chat(true);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("second try").endsWith("data: [DONE]\n\n");
        assertThat(upstream.requestCount()).isEqualTo(2);
        assertThat(health().get("streams").get("early_eof").asInt()).isEqualTo(1);
        nothingRunningAndNothingCooled();
    }

    @Test
    void anUpstreamThatKeepsEndingEarlyIsA502StreamEarlyEof_ST0() {
        upstream.setDefault(MockResponse.stream().event(SseEvents.openAiRole()).thenEnd());

        HttpResponse<String> r = chat(true);

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(read(r.body()).get("error").get("code").asText()).isEqualTo("STREAM_EARLY_EOF");
        assertThat(read(r.body()).get("error").get("message").asText()).contains("ended before its first useful event");
        assertThat(upstream.requestCount()).isEqualTo(2);
    }

    @Test
    void aStreamThatStallsAfterContentEndsWithAnErrorEventAndDoneAndTheUpstreamIsLetGo_ST1_CC5() throws Exception {
        streamRecovery("{\"idleTimeoutMs\":1500,\"keepAliveIntervalMs\":1000}");
        // content, then heartbeats only: heartbeats are relayed but are not model output
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("Hel")).thenRepeat(Duration.ofMillis(100),
                SseEvents.comment("keep-alive")));

        HttpResponse<String> r = chat(true);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"Hel\"").contains("\"code\":\"STREAM_STALL_TIMEOUT\"").endsWith("data: [DONE]\n\n");
        assertThat(upstream.awaitClientGone(upstream.takeRequest(Duration.ofSeconds(5)), Duration.ofSeconds(5)))
                .as("the upstream request was ended").isTrue();
        assertThat(health().get("streams").get("stalled").asInt()).isEqualTo(1);
        // CC-5: recorded on the connection, not cooled
        nothingRunningAndNothingCooled();
        JsonNode conn = read(sluice.send("GET", "/api/providers/" + connectionId, ADMIN_KEY, null).body());
        assertThat(conn.get("lastErrorType").asText()).isEqualTo("stream_stall");
    }

    @Test
    void aSilenceInsideTheBudgetGetsKeepAlivesAndTheStreamCompletes_ST0() {
        streamRecovery("{\"idleTimeoutMs\":5000,\"keepAliveIntervalMs\":1000}");
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("a")).pause(Duration.ofMillis(2_500))
                .event(SseEvents.openAiDelta("b")).event(SseEvents.openAiFinish("stop")).event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = chat(true);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(": keep-alive").contains("\"b\"").endsWith("data: [DONE]\n\n");
        assertThat(r.body().indexOf(": keep-alive")).isLessThan(r.body().indexOf("\"b\""));
        assertThat(health().get("streams").get("completed").asInt()).isEqualTo(1);
        nothingRunningAndNothingCooled();
    }

    @Test
    void reasoningPausesKeepAStreamAliveOnTheAnthropicApiToo_ST1() {
        streamRecovery("{\"idleTimeoutMs\":1000,\"keepAliveIntervalMs\":1000}");
        MockResponse.StreamBuilder s = MockResponse.stream().event(SseEvents.openAiReasoning("thinking"));
        for (int i = 0; i < 5; i++) {
            s = s.pause(Duration.ofMillis(500)).event(SseEvents.openAiReasoning(""));
        }
        upstream.enqueue(s.event(SseEvents.openAiDelta("answer")).event(SseEvents.openAiFinish("stop")).event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = sluice.send("POST", "/v1/messages", null,
                "{\"model\":\"alpha/m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                java.util.Map.of("x-api-key", clientKey));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("thinking_delta").contains("\"answer\"").contains("event: message_stop").doesNotContain("event: error");
        nothingRunningAndNothingCooled();
    }

    @Test
    void aTrickleBelowTheMinimumRateEndsWithTheThroughputError_ST2() {
        streamRecovery("{\"throughputWatchdog\":{\"enabled\":true,\"windowMs\":5000,\"warmupMs\":0,\"minBytesPerSecond\":100,"
                + "\"minMeasurableBytes\":0}}");
        // two bytes every 250 ms: 8 bytes/s, far below 100
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).thenRepeat(Duration.ofMillis(250), SseEvents.openAiDelta("ab")));

        long t0 = System.nanoTime();
        HttpResponse<String> r = chat(true);
        long tookMs = (System.nanoTime() - t0) / 1_000_000;

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"ab\"").contains("\"code\":\"STREAM_THROUGHPUT_TOO_LOW\"").endsWith("data: [DONE]\n\n");
        assertThat(tookMs).as("judged only after one full window").isBetween(5_000L, 15_000L);
        assertThat(health().get("streams").get("too_slow").asInt()).isEqualTo(1);
        nothingRunningAndNothingCooled();
    }

    @Test
    void theFirstContentEventReachesTheClientWhileTheUpstreamHoldsTheRest_ST0() throws Exception {
        // issue 26: the readiness gate holds the role-only chunk until the first useful event, and that event goes out at
        // once: nothing waits for the upstream's next event (or a fuller buffer). Were it held back, the stall watchdog
        // would end the stream first, and the client would read its error instead of the content.
        streamRecovery("{\"idleTimeoutMs\":1500,\"keepAliveIntervalMs\":1000}");
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).event(SseEvents.openAiDelta("first")).thenHold());
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<InputStream> r = streamed(http);
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.contains("\"first\"")) {
                lines.add(line);
            }
            lines.add(line);
        }
        http.close();

        // the role chunk, then the content, and nothing else: no keep-alive, no watchdog's error before it
        List<String> sent = lines.stream().filter(l -> l != null && !l.isEmpty()).toList();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0)).startsWith("data: ").contains("\"role\":\"assistant\"");
        assertThat(sent.get(1)).startsWith("data: ").contains("\"content\":\"first\"");
        assertThat(upstream.awaitClientGone(upstream.takeRequest(Duration.ofSeconds(5)), Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void aClientThatLeavesMidStreamEndsTheUpstreamRequestAtOnce_BO6() throws Exception {
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("Hi")).thenHold());
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<InputStream> r = streamed(http);
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.contains("Hi")) {
                lines.add(line);
            }
        }
        // the body's stream is closed: the client went away mid-stream
        http.close();

        assertThat(upstream.awaitClientGone(upstream.takeRequest(Duration.ofSeconds(5)), Duration.ofSeconds(5))).isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(this::nothingRunningAndNothingCooled);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> health().get("streams").get("client_gone").asInt() == 1);
    }
}
