package dev.sluice.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stream shapes the stream watchdogs (SPEC §15) are tested against, played by a real
 * {@link MockUpstream} over loopback HTTP/1.1 and read chunk by chunk. Timing is checked against
 * the moment the request was sent, so a late reader can only make a lower bound safer; upper
 * bounds are generous.
 */
class ScriptedStreamTest {

    private static final String REQUEST =
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
    private static final Duration GENEROUS = Duration.ofSeconds(3);

    private MockUpstream upstream;
    private long sentAt;

    @BeforeEach
    void start() {
        upstream = MockUpstream.start();
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    @Test
    void keepAliveCommentsOnlyNeverEndTheStream_ST0() throws Exception {
        upstream.enqueue(MockResponse.stream().thenRepeat(Duration.ofMillis(100), SseEvents.comment("keep-alive")));

        try (RawClient raw = openStream()) {
            for (int i = 1; i <= 4; i++) {
                assertThat(raw.readChunk()).isEqualTo(": keep-alive\n\n");
                assertThat(millisSinceSent()).isGreaterThanOrEqualTo(100L * i).isLessThan(100L * i + GENEROUS.toMillis());
            }
        }

        assertThat(upstream.awaitClientGone(upstream.takeRequest(GENEROUS), GENEROUS)).isTrue();
    }

    @Test
    void endRightAfterTheHeadersIsAnEarlyEofAndKeepsTheConnection_ST0() throws Exception {
        upstream.enqueue(MockResponse.stream().thenEnd()).enqueue(MockResponse.json(200, "next"));

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isNull();
            raw.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.readResponse()).endsWith("next");
        }
    }

    @Test
    void endAfterARoleOnlyChunkIsAnEarlyEof_ST0() throws Exception {
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).thenEnd());

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiRole()).contains("\"role\":\"assistant\"");
            assertThat(raw.readChunk()).isNull();
        }
    }

    @Test
    void closeAfterMessageStartAndPingCutsTheBodyShort_ST0() throws Exception {
        upstream.enqueue(MockResponse.stream()
                .event(SseEvents.messageStart("claude-test"))
                .event(SseEvents.ping())
                .thenClose());

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.messageStart("claude-test"));
            assertThat(raw.readChunk()).isEqualTo(SseEvents.ping());
            assertThat(raw.in.read()).isEqualTo(-1); // a FIN where the terminating chunk should be
        }
        // the mock ended the connection, not the client
        assertThat(upstream.awaitClientGone(upstream.takeRequest(GENEROUS), Duration.ofMillis(100))).isFalse();
    }

    @Test
    void resetAfterAnEventAbortsTheConnection() throws Exception {
        // the pause lets the event arrive: a reset may discard what the client has not read yet
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("x")).pause(Duration.ofMillis(100)).thenReset());

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiDelta("x"));
            assertThatThrownBy(raw::readChunk).isInstanceOf(IOException.class).isNotInstanceOf(EOFException.class);
        }
    }

    @Test
    void oneDeltaThenSilenceHoldsTheConnectionOpen_ST1() throws Exception {
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("Hel")).thenHold());

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiDelta("Hel"));
            raw.readTimeout(Duration.ofMillis(300));
            assertThatThrownBy(raw::readChunk).isInstanceOf(SocketTimeoutException.class);
        }

        assertThat(upstream.awaitClientGone(upstream.takeRequest(GENEROUS), GENEROUS)).isTrue();
    }

    @Test
    void contentThenOnlyPingsForever_ST1() throws Exception {
        upstream.enqueue(MockResponse.stream()
                .event(SseEvents.openAiDelta("Hi"))
                .thenRepeat(Duration.ofMillis(50), SseEvents.ping()));

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiDelta("Hi"));
            for (int i = 1; i <= 5; i++) {
                assertThat(raw.readChunk()).isEqualTo("event: ping\ndata: {\"type\":\"ping\"}\n\n");
            }
            assertThat(millisSinceSent()).isGreaterThanOrEqualTo(250);
        }

        assertThat(upstream.awaitClientGone(upstream.takeRequest(GENEROUS), GENEROUS)).isTrue();
    }

    @Test
    void openAiReasoningPausesThenContentThenDone_ST1() throws Exception {
        upstream.enqueue(MockResponse.stream()
                .event(SseEvents.openAiRole())
                .event(SseEvents.openAiReasoning("Let me"))
                .pause(Duration.ofMillis(200))
                .event(SseEvents.openAiReasoning(" think"))
                .pause(Duration.ofMillis(200))
                .event(SseEvents.openAiDelta("Answer"))
                .event(SseEvents.openAiFinish("stop"))
                .event(SseEvents.DONE)
                .thenEnd());

        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            long sent = System.nanoTime();
            HttpResponse<InputStream> response = client.send(
                    HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/chat/completions"))
                            .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            List<String> data = new ArrayList<>();
            List<Long> millis = new ArrayList<>();
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    if (line.startsWith("data: ")) {
                        data.add(line.substring(6));
                        millis.add((System.nanoTime() - sent) / 1_000_000);
                    }
                }
            }

            assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
            assertThat(data).hasSize(6);
            assertThat(data.get(1)).contains("\"delta\":{\"reasoning_content\":\"Let me\"}");
            assertThat(data.get(2)).contains("\"delta\":{\"reasoning_content\":\" think\"}");
            assertThat(data.get(3)).contains("\"delta\":{\"content\":\"Answer\"}");
            assertThat(data.get(4)).contains("\"finish_reason\":\"stop\"", "\"usage\":{");
            assertThat(data.get(5)).isEqualTo("[DONE]");
            assertThat(millis.get(2)).isGreaterThanOrEqualTo(200);
            assertThat(millis.get(3)).isGreaterThanOrEqualTo(400).isLessThan(400 + GENEROUS.toMillis());
        }
    }

    @Test
    void anthropicThinkingPausesThenTextThenMessageStop_ST1() throws Exception {
        List<String> frames = List.of(
                SseEvents.messageStart("claude-test"),
                SseEvents.thinkingBlockStart(0),
                SseEvents.thinkingDelta(0, "Hmm"),
                SseEvents.thinkingDelta(0, ""),
                SseEvents.contentBlockStop(0),
                SseEvents.textBlockStart(1),
                SseEvents.textDelta(1, "Hello"),
                SseEvents.contentBlockStop(1),
                SseEvents.messageDelta("end_turn"),
                SseEvents.messageStop());
        upstream.enqueue(MockResponse.stream()
                .event(frames.get(0)).event(frames.get(1)).event(frames.get(2))
                .pause(Duration.ofMillis(200))
                .event(frames.get(3))
                .pause(Duration.ofMillis(200))
                .event(frames.get(4)).event(frames.get(5)).event(frames.get(6)).event(frames.get(7))
                .event(frames.get(8)).event(frames.get(9))
                .thenEnd());

        try (RawClient raw = openStream()) {
            List<String> received = new ArrayList<>();
            List<Long> millis = new ArrayList<>();
            for (String chunk; (chunk = raw.readChunk()) != null; ) {
                received.add(chunk);
                millis.add(millisSinceSent());
            }

            assertThat(received).isEqualTo(frames);
            assertThat(received.get(3)).isEqualTo("event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                    + "\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\"}}\n\n");
            assertThat(millis.get(3)).isGreaterThanOrEqualTo(200);
            assertThat(millis.get(6)).isGreaterThanOrEqualTo(400).isLessThan(400 + GENEROUS.toMillis());
        }
    }

    @Test
    void trickleWritesEachSmallDeltaOnItsOwnOnSchedule_ST2() throws Exception {
        upstream.enqueue(MockResponse.stream()
                .event(SseEvents.openAiRole())
                .repeat(10, Duration.ofMillis(30), SseEvents.openAiDelta("ab"))
                .event(SseEvents.DONE)
                .thenEnd());

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiRole());
            for (int i = 1; i <= 10; i++) {
                assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiDelta("ab"));
                assertThat(millisSinceSent()).isGreaterThanOrEqualTo(30L * i);
            }
            assertThat(raw.readChunk()).isEqualTo(SseEvents.DONE);
            assertThat(raw.readChunk()).isNull();
            assertThat(millisSinceSent()).isLessThan(300 + GENEROUS.toMillis());
        }
    }

    @Test
    void aPauseInsideTheBudgetIsSilentThenTheStreamCompletes_ST1() throws Exception {
        upstream.enqueue(MockResponse.stream()
                .event(SseEvents.openAiDelta("a"))
                .pause(Duration.ofMillis(400))
                .event(SseEvents.openAiDelta("b"))
                .event(SseEvents.DONE)
                .thenEnd());

        try (RawClient raw = openStream()) {
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiDelta("a"));
            raw.readTimeout(Duration.ofMillis(150));
            assertThatThrownBy(raw::readChunk).isInstanceOf(SocketTimeoutException.class); // silent so far
            raw.readTimeout(GENEROUS);
            assertThat(raw.readChunk()).isEqualTo(SseEvents.openAiDelta("b"));
            assertThat(millisSinceSent()).isGreaterThanOrEqualTo(400).isLessThan(400 + GENEROUS.toMillis());
            assertThat(raw.readChunk()).isEqualTo(SseEvents.DONE);
            assertThat(raw.readChunk()).isNull();
        }
    }

    @Test
    void headersAndDelayComposeWithAScript() throws Exception {
        upstream.enqueue(MockResponse.delayed(Duration.ofMillis(200),
                MockResponse.stream().event(SseEvents.DONE).thenEnd().header("X-Upstream", "mock")));

        try (RawClient raw = new RawClient(upstream.port())) {
            sentAt = System.nanoTime();
            raw.send(REQUEST);
            assertThat(raw.readUntil("\r\n\r\n")).contains("X-Upstream: mock\r\n");
            assertThat(millisSinceSent()).isGreaterThanOrEqualTo(200);
            assertThat(raw.readChunk()).isEqualTo(SseEvents.DONE);
        }
    }

    @Test
    void closeReleasesHeldAndRepeatingStreamsAtOnce() throws Exception {
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("x")).thenHold())
                .enqueue(MockResponse.stream().thenRepeat(Duration.ofMillis(20), SseEvents.comment("k")));

        try (RawClient held = openStream(); RawClient repeating = openStream()) {
            assertThat(held.readChunk()).isEqualTo(SseEvents.openAiDelta("x"));
            assertThat(repeating.readChunk()).isEqualTo(": k\n\n");
            RecordedRequest first = upstream.takeRequest(GENEROUS);

            long start = System.nanoTime();
            upstream.close();
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2_000);

            assertThat(held.in.read()).isEqualTo(-1);
            assertThat(repeating.readUntilEnd()).doesNotContain("0\r\n\r\n");
            assertThat(upstream.awaitClientGone(first, Duration.ZERO)).isFalse(); // the mock left, not the client
        }
    }

    @Test
    void aHangNoticesTheClientLeaving() throws Exception {
        upstream.enqueue(MockResponse.hang());
        RecordedRequest request;
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send(REQUEST);
            request = upstream.takeRequest(GENEROUS);
            assertThat(upstream.awaitClientGone(request, Duration.ofMillis(100))).isFalse();
        }

        assertThat(upstream.awaitClientGone(request, GENEROUS)).isTrue();
    }

    @Test
    void aClientClosingAnIdleConnectionLeavesItsLatestRequest() throws Exception {
        upstream.enqueue(MockResponse.json(200, "one")).enqueue(MockResponse.json(200, "two"));
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n");
            raw.readResponse();
            raw.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n");
            raw.readResponse();
        }
        RecordedRequest one = upstream.takeRequest(GENEROUS);
        RecordedRequest two = upstream.takeRequest(GENEROUS);

        assertThat(upstream.awaitClientGone(two, GENEROUS)).isTrue();
        assertThat(upstream.awaitClientGone(one, Duration.ZERO)).isFalse();
    }

    @Test
    void awaitClientGoneRefusesARequestItDoesNotKeep() {
        RecordedRequest handBuilt = new RecordedRequest("GET", "/", Map.of(), "");

        assertThatThrownBy(() -> upstream.awaitClientGone(handBuilt, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GET /");
    }

    @Test
    void theBuilderRefusesStepsThatCannotBePlayed() {
        MockResponse.StreamBuilder builder = MockResponse.stream();

        assertThatThrownBy(() -> builder.event("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty chunk");
        assertThatThrownBy(() -> builder.pause(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.repeat(0, Duration.ZERO, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.thenRepeat(Duration.ZERO, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.comment("two\nlines")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Sends {@link #REQUEST}, reads the headers of a scripted stream, and leaves the body unread. */
    private RawClient openStream() throws IOException {
        RawClient raw = new RawClient(upstream.port());
        sentAt = System.nanoTime();
        raw.send(REQUEST);
        assertThat(raw.readUntil("\r\n\r\n")).startsWith("HTTP/1.1 200 OK\r\n")
                .contains("Content-Type: text/event-stream\r\n", "Transfer-Encoding: chunked\r\n");
        return raw;
    }

    private long millisSinceSent() {
        return (System.nanoTime() - sentAt) / 1_000_000;
    }
}
