package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.UpstreamLimits;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.SseEvents;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28: a non-streamed answer that stops mid-body, or trickles for ever, is bounded by
 * {@code upstream.bodyIdleTimeoutMs} and {@code upstream.answerDeadlineMs} — not by the 60 s headers
 * timeout — on the translated and the passthrough path; the attempt fails over (nothing reached the
 * client), the upstream's connection is closed, and the connection is charged with an upstream
 * timeout.
 */
class AnswerBoundsIT {

    /**
     * The answer deadline of the trickle test. It bounds the healthy attempt too (its headers wait
     * included), so it is the time a loopback mock gets to answer on a loaded 2-CPU machine: at 2 s
     * the healthy attempt once timed out in CI ("Read timed out (after 2 attempts)").
     */
    private static final long DEADLINE_MS = 5_000;

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream bad;
    MockUpstream healthy;
    String key;

    void start(UpstreamLimits limits, MockResponse fault) {
        // a headers timeout far past the HTTP client's 30 s: only the new bounds can end these attempts in time
        sluice = SluiceHarness.withUpstreamLimits(dir, limits, Duration.ofSeconds(60));
        bad = MockUpstream.start().setDefault(fault);
        healthy = MockUpstream.start();
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        if (sluice != null) {
            sluice.close();
        }
        if (bad != null) {
            bad.close();
        }
        if (healthy != null) {
            healthy.close();
        }
    }

    @Test
    void anAnswerThatGoesSilentMidBodyFailsOverAfterTheBodyIdleBound() throws Exception {
        start(UpstreamLimits.DEFAULTS.withAnswerTimes(1_000, 60_000),
                MockResponse.stream().event("{\"id\":\"chatcmpl-half\",\"object\":").thenHold());
        // the healthy attempt waits for its headers up to the 60 s deadline: only the bound is short
        assertBoundedAndFailedOver(1_000, 1_000 + 3_000, "upstream.bodyIdleTimeoutMs");
    }

    @Test
    void anAnswerThatTricklesFailsOverAtTheAnswerDeadline() throws Exception {
        // a byte every 300 ms never trips the silence bound: only the deadline ends it
        start(UpstreamLimits.DEFAULTS.withAnswerTimes(60_000, DEADLINE_MS),
                MockResponse.stream().thenRepeat(Duration.ofMillis(300), SseEvents.comment("...")));
        // the deadline is per attempt (docs/operator-guide.md: "one non-streamed attempt"): the healthy
        // attempt has DEADLINE_MS of its own, headers included, so the request takes at most two of them
        assertBoundedAndFailedOver(DEADLINE_MS, 2 * DEADLINE_MS + 1_000, "upstream.answerDeadlineMs");
    }

    /**
     * @param boundMs the bound that must end the stalled attempt, ms: the request cannot be faster
     * @param mostMs the longest the request may take, ms: the bound, the healthy attempt and a sweep
     * @param setting the bound's setting, for the messages
     */
    private void assertBoundedAndFailedOver(long boundMs, long mostMs, String setting) throws Exception {
        String translatedId = sluice.addOpenAiCompatible("alpha", bad.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("alpha", healthy.baseUrl() + "/v1", 2);
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-a\",\"baseUrl\":\"" + bad.baseUrl()
                + "/v1\",\"priority\":1}");
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-b\",\"baseUrl\":\"" + healthy.baseUrl()
                + "/v1\",\"priority\":2}");
        healthy.enqueue(MockResponse.completion("from the second"));
        healthy.enqueue(MockResponse.json(200, "{\"id\":\"resp_second\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}"));

        long t0 = System.nanoTime();
        HttpResponse<String> translated = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", false));
        long translatedMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(translated.statusCode()).as(translated.body()).isEqualTo(200);
        assertThat(read(translated.body()).at("/choices/0/message/content").asText()).isEqualTo("from the second");
        assertThat(translatedMs).as("bounded by " + setting).isBetween(boundMs - 200, mostMs);
        RecordedRequest first = bad.takeRequest(Duration.ofSeconds(1));
        // closed when the request failed over; the trickling mock sees it at its next write, 300 ms on at most, unless loaded
        assertThat(bad.awaitClientGone(first, Duration.ofSeconds(5))).as("the silent upstream's connection was closed").isTrue();

        t0 = System.nanoTime();
        HttpResponse<String> passthrough = sluice.send("POST", "/v1/responses", key, "{\"model\":\"openai/gpt-5\",\"input\":\"hi\"}");
        long passthroughMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(passthrough.statusCode()).as(passthrough.body()).isEqualTo(200);
        assertThat(read(passthrough.body()).get("id").asText()).isEqualTo("resp_second");
        assertThat(passthroughMs).as("bounded by " + setting).isBetween(boundMs - 200, mostMs);

        assertThat(attemptErrors(translatedId)).as("charged as the upstream's timeout").contains("timeout");
    }

    /** The error types of the attempts on a connection, from {@code GET /api/logs}. */
    private java.util.List<String> attemptErrors(String connectionId) {
        java.util.List<String> errors = new java.util.ArrayList<>();
        read(sluice.send("GET", "/api/logs", ADMIN_KEY, null).body()).findValues("attempts").forEach(attempts -> attempts.forEach(a -> {
            if (connectionId.equals(a.path("connectionId").asText())) {
                errors.add(a.path("errorType").asText());
            }
        }));
        return errors;
    }
}
