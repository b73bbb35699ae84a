package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.SseEvents;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: a client that closes its socket ends the upstream request within 250 ms, detected from
 * the socket (not at the next failed write), on every path — chat SSE, {@code /v1/messages}
 * translated, {@code /v1/responses} translated and passed through, and before the first byte — and
 * the connection's permit is back at once ({@code running: 0}); a request that leaves the queue
 * never reaches the upstream. The upstreams hold their streams open after a first useful event, so
 * nothing but the socket's close can end them (the relay's own liveness question comes once a
 * second).
 */
class ClientDisconnectIT {

    /** The bound of issue 28, from the client's close to the upstream seeing its connection closed. */
    static final Duration BOUND = Duration.ofMillis(250);

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        // a long headers timeout: nothing but the client's leaving may end these attempts
        sluice = new SluiceHarness(dir, Duration.ofSeconds(60));
        upstream = MockUpstream.start();
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private static final MockResponse HELD_CHAT_STREAM = MockResponse.stream().event(SseEvents.openAiRole())
            .event(SseEvents.openAiDelta("Hello")).thenHold();

    @Test
    void chatSseMidStreamEndsTheUpstreamWithinTheBound() throws Exception {
        String connection = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        upstream.enqueue(HELD_CHAT_STREAM);
        leaveAndAssert("/v1/chat/completions", SluiceHarness.chatBody("alpha/m", true), "", "Hello", connection);
    }

    @Test
    void chatSseWithAPacedStreamEndsTheUpstreamWithinTheBound() throws Exception {
        // the measurement: 30 chunks 200 ms apart, the client leaves after four of them
        String connection = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole())
                .repeat(30, Duration.ofMillis(200), SseEvents.openAiDelta("tick")).thenEnd());
        leaveAndAssert("/v1/chat/completions", SluiceHarness.chatBody("alpha/m", true), "", "tick", 4, connection);
    }

    @Test
    void messagesTranslatedMidStreamEndsTheUpstreamWithinTheBound() throws Exception {
        String connection = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        upstream.enqueue(HELD_CHAT_STREAM);
        leaveAndAssert("/v1/messages", "{\"model\":\"alpha/m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\","
                + "\"content\":\"hi\"}]}", "anthropic-version: 2023-06-01\r\n", "Hello", connection);
    }

    @Test
    void responsesTranslatedMidStreamEndsTheUpstreamWithinTheBound() throws Exception {
        String connection = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        upstream.enqueue(HELD_CHAT_STREAM);
        leaveAndAssert("/v1/responses", "{\"model\":\"alpha/m\",\"input\":\"hi\",\"stream\":true}", "", "Hello", connection);
    }

    @Test
    void responsesPassedThroughMidStreamEndsTheUpstreamWithinTheBound() throws Exception {
        String connection = sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-openai-abcdef\","
                + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"priority\":1}");
        upstream.enqueue(MockResponse.stream()
                .event(SseEvents.event("response.created", "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":"
                        + "\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"gpt-5\",\"output\":[]}}"))
                .event(SseEvents.event("response.output_text.delta", "{\"type\":\"response.output_text.delta\",\"sequence_number\":1,"
                        + "\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hello\"}"))
                .thenHold());
        leaveAndAssert("/v1/responses", "{\"model\":\"openai/gpt-5\",\"input\":\"hi\",\"stream\":true}", "", "Hello", connection);
    }

    @Test
    void beforeTheFirstByteTheUpstreamCallEndsWithinTheBound() throws Exception {
        String connection = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        for (boolean stream : new boolean[] {false, true}) {
            upstream.enqueue(MockResponse.hang());
            try (Socket s = send("/v1/chat/completions", SluiceHarness.chatBody("alpha/m", stream), "")) {
                RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
                assertThat(sent).isNotNull();
                s.close();
                assertThat(upstream.awaitClientGone(sent, BOUND)).as("stream=" + stream + ": the upstream call was cut within the bound")
                        .isTrue();
            }
        }
        assertNothingRuns(connection);
    }

    @Test
    void aQueuedRequestWhoseClientLeavesNeverReachesTheUpstream() throws Exception {
        String connection = sluice.addConnection("{\"provider\":\"alpha\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-alpha-abcdef\","
                + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"priority\":1,\"maxConcurrent\":1}");
        upstream.enqueue(HELD_CHAT_STREAM);
        try (Socket first = send("/v1/chat/completions", SluiceHarness.chatBody("alpha/m", true), "")) {
            readUntil(first, "Hello", 1);
            RecordedRequest held = upstream.takeRequest(Duration.ofSeconds(5));
            try (Socket queued = send("/v1/chat/completions", SluiceHarness.chatBody("alpha/m", false), "")) {
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> rateLimits(connection).get("queued").asInt() == 1);
                queued.close();
                long t0 = System.nanoTime();
                Awaitility.await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10))
                        .until(() -> rateLimits(connection).get("queued").asInt() == 0);
                assertThat((System.nanoTime() - t0) / 1_000_000).as("left the queue within the bound").isLessThanOrEqualTo(BOUND.toMillis());
            }
            first.close();
            assertThat(upstream.awaitClientGone(held, BOUND)).isTrue();
        }
        assertNothingRuns(connection);
        assertThat(upstream.requestCount()).as("the queued request never went upstream").isEqualTo(1);
    }

    private void leaveAndAssert(String path, String body, String headers, String seen, String connection) throws Exception {
        leaveAndAssert(path, body, headers, seen, 1, connection);
    }

    /** Sends, reads until {@code seen} came {@code times} times, closes the socket, and checks the upstream and the permit. */
    private void leaveAndAssert(String path, String body, String headers, String seen, int times, String connection) throws Exception {
        try (Socket s = send(path, body, headers)) {
            readUntil(s, seen, times);
            RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
            assertThat(sent).isNotNull();
            s.close();
            assertThat(upstream.awaitClientGone(sent, BOUND)).as(path + ": the upstream saw its connection closed within " + BOUND).isTrue();
        }
        assertNothingRuns(connection);
    }

    private void assertNothingRuns(String connection) {
        // the permit comes back with the upstream's close: no wait for a later write or tick
        Awaitility.await().atMost(BOUND).pollInterval(Duration.ofMillis(10))
                .until(() -> rateLimits(connection).get("running").asInt() == 0);
    }

    private JsonNode rateLimits(String connection) {
        for (JsonNode row : read(sluice.send("GET", "/api/rate-limits", ADMIN_KEY, null).body()).get("data")) {
            if (row.get("connectionId").asText().equals(connection)) {
                return row;
            }
        }
        throw new AssertionError("no rate-limits row for " + connection);
    }

    private Socket send(String path, String body, String headers) throws Exception {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port());
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key + "\r\n" + headers
                + "Content-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
        return s;
    }

    /** Reads the answer until {@code text} appeared {@code times} times. */
    private static void readUntil(Socket s, String text, int times) throws Exception {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        while (true) {
            int n = in.read(buf);
            assertThat(n).as("the answer ended before '" + text + "' x" + times + ": " + got).isPositive();
            got.write(buf, 0, n);
            String sofar = got.toString(StandardCharsets.UTF_8);
            int count = 0;
            for (int i = sofar.indexOf(text); i >= 0; i = sofar.indexOf(text, i + 1)) {
                count++;
            }
            if (count >= times) {
                return;
            }
        }
    }
}
