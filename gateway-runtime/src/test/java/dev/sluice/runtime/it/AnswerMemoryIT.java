package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.config.UpstreamLimits;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an upstream can make Sluice buffer is bounded by settings (issue 19, defect 2):
 * {@code upstream.maxAnswerBytes} per whole answer, {@code upstream.answerBufferBytes} for all
 * answers being read at once, {@code upstream.maxEventBytes} per stream event. Past each the attempt
 * fails as the upstream's protocol error, with a message naming the setting, and the next request is
 * served; never an OutOfMemoryError.
 */
class AnswerMemoryIT {

    private static final int KIB = 1024;
    private static final String FILLER = "x".repeat(64 * KIB);

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = SluiceHarness.withUpstreamLimits(dir, new UpstreamLimits(1024 * KIB, 64 * KIB, 1024 * KIB, UpstreamLimits.DEFAULT_MAX_STREAM_BYTES,
                UpstreamLimits.DEFAULT_BODY_IDLE_TIMEOUT_MS, UpstreamLimits.DEFAULT_ANSWER_DEADLINE_MS), Duration.ofSeconds(3));
        upstream = MockUpstream.start();
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private HttpResponse<String> chat(boolean stream) {
        return sluice.send("POST", "/v1/chat/completions", key, chatBody("alpha/m", stream));
    }

    private static String message(HttpResponse<String> r) {
        JsonNode err = read(r.body()).get("error");
        return err == null ? "" : err.get("message").asText();
    }

    @Test
    void anEndlessAnswerFailsAtItsBoundAndTheNextIsServed() {
        upstream.enqueue(MockResponse.stream().thenRepeat(Duration.ofMillis(1), FILLER));
        HttpResponse<String> r = chat(false);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        assertThat(message(r)).contains("upstream.maxAnswerBytes (1048576 bytes)");

        upstream.setDefault(MockResponse.completion("fine"));
        HttpResponse<String> next = chat(false);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        assertThat(next.body()).contains("fine");
    }

    @Test
    void answersReadAtOnceShareTheBudget() {
        // the first answer holds 960 KiB of the 1 MiB budget and then stalls
        upstream.enqueue(MockResponse.stream().repeat(15, Duration.ZERO, FILLER).thenHold());
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> chat(false));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> upstream.requestCount() == 1);
        // the second finds no room while the first is being read
        upstream.enqueue(MockResponse.stream().thenRepeat(Duration.ofMillis(1), FILLER));
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            HttpResponse<String> second = chat(false);
            assertThat(second.statusCode()).as(second.body()).isEqualTo(502);
            assertThat(message(second)).contains("upstream.answerBufferBytes 1048576");
        });
        // the stalled one ends at its deadline (upstream.headersTimeoutMs from its headers) and gives its room back
        assertThat(first.join().statusCode()).isEqualTo(504);
        upstream.setDefault(MockResponse.json(200, "{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + "y".repeat(600 * KIB)
                + "\"},\"finish_reason\":\"stop\"}]}"));
        HttpResponse<String> big = chat(false);
        assertThat(big.statusCode()).as("a 600 KiB answer fits once the budget is free").isEqualTo(200);
    }

    @Test
    void aStreamEventPastItsBoundEndsTheStream() {
        upstream.enqueue(MockResponse.sse(java.util.List.of("z".repeat(64 * KIB + 1)), Duration.ZERO));
        HttpResponse<String> r = chat(true);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        assertThat(message(r)).contains("65536");
    }

    @Test
    void aLargeAnswerReachesTheClientWholeWithItsLength() {
        // past Json.COPIED_BYTES the body leaves through the response stream with its Content-Length (issue 29)
        String content = "y".repeat(600 * KIB);
        upstream.enqueue(MockResponse.completion(content));
        upstream.enqueue(MockResponse.completion(content));
        HttpResponse<String> r = chat(false);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-length")).hasValue(Integer.toString(r.body().length()));
        assertThat(read(r.body()).at("/choices/0/message/content").asText()).isEqualTo(content);
        HttpResponse<String> m = sluice.send("POST", "/v1/messages", key,
                "{\"model\":\"alpha/m\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(m.statusCode()).as(m.body()).isEqualTo(200);
        assertThat(m.headers().firstValue("content-length")).hasValue(Integer.toString(m.body().length()));
        assertThat(read(m.body()).at("/content/0/text").asText()).isEqualTo(content);
    }

    @Test
    void aValidAnswerOfMillionsOfValuesIsRefusedBeforeItIsParsed_issue29() {
        // a chat completion with a 900 KiB field of 300 000 empty objects: parsed, a tree of ~28 MiB;
        // in the default setup a 12 MiB one (four million) was an OutOfMemoryError and a 500
        StringBuilder objects = new StringBuilder("[{}");
        while (objects.length() < 900 * KIB) {
            objects.append(",{}");
        }
        upstream.enqueue(MockResponse.json(200, "{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
                + "\"x\":" + objects.append(']') + "}"));
        HttpResponse<String> r = chat(false);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        assertThat(message(r)).contains("too many JSON values").contains("upstream.answerBufferBytes 1048576");
        assertThat(r.headers().firstValue("x-request-id")).isPresent();

        upstream.setDefault(MockResponse.completion("fine"));
        HttpResponse<String> next = chat(false);
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        assertThat(next.body()).contains("fine");
    }
}
