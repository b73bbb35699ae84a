package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.UpstreamLimits;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.SseEvents;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream of events each under {@code upstream.maxEventBytes} is bounded in all by
 * {@code upstream.maxStreamBytes} (issue 29, point 2): past it the stream ends with the client
 * protocol's error event naming the setting, never cut without one and never completed as if whole.
 */
class StreamMemoryIT {

    private static final int KIB = 1024;
    private static final String PIECE = "x".repeat(100 * KIB);

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        // 256 KiB events, 2 MiB a stream
        sluice = SluiceHarness.withUpstreamLimits(dir, new UpstreamLimits(1024 * KIB, 256 * KIB, 8192 * KIB, 2048 * KIB,
                UpstreamLimits.DEFAULT_BODY_IDLE_TIMEOUT_MS, UpstreamLimits.DEFAULT_ANSWER_DEADLINE_MS),
                Duration.ofSeconds(3));
        upstream = MockUpstream.start();
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    @Test
    void aChatStreamPastMaxStreamBytesEndsWithAnErrorEvent() {
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        upstream.enqueue(MockResponse.chatStream(Collections.nCopies(40, PIECE), Duration.ZERO));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(PIECE).contains("upstream.maxStreamBytes (2097152 bytes").doesNotContain("[DONE]");
        assertThat(r.body().substring(r.body().lastIndexOf("data: "))).startsWith("data: {\"error\"");
    }

    @Test
    void aResponsesStreamPassedThroughPastMaxStreamBytesEndsWithAnErrorEvent() {
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-openai-abcdef\","
                + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"priority\":1}");
        MockResponse.StreamBuilder s = MockResponse.stream().event(SseEvents.event("response.created", "{\"type\":\"response.created\","
                + "\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}"));
        for (int i = 1; i <= 40; i++) {
            s.event(SseEvents.event("response.output_text.delta", "{\"type\":\"response.output_text.delta\",\"sequence_number\":" + i
                    + ",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"" + PIECE + "\"}"));
        }
        upstream.enqueue(s.event(SseEvents.event("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":41,"
                + "\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}}")).thenEnd());

        HttpResponse<String> r = sluice.send("POST", "/v1/responses", key,
                "{\"model\":\"openai/gpt-5\",\"stream\":true,\"input\":\"hi\"}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(PIECE).contains("upstream.maxStreamBytes (2097152 bytes").doesNotContain("response.completed");
    }

    @Test
    void aStreamEventOfTooManyValuesForItsSizeEndsTheStreamWithAnErrorEvent_issue29() {
        // one 150 KiB chat chunk of 50 000 empty objects: parsed, a ~5 MiB tree; 4 MiB events of them at
        // once were an OutOfMemoryError with the default heap
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        StringBuilder objects = new StringBuilder("[{}");
        while (objects.length() < 150 * KIB) {
            objects.append(",{}");
        }
        String dense = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\"a\"}}],\"x\":" + objects.append(']') + "}";
        String text = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"content\":\"" + PIECE + "\"}}]}";
        upstream.enqueue(MockResponse.stream().event("data: " + text + "\n\n").event("data: " + dense + "\n\n").thenEnd());

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", true));

        assertThat(r.statusCode()).isEqualTo(200);
        // a large event of text is relayed; the dense one ends the stream with the protocol's error event
        assertThat(r.body()).contains(PIECE).contains("too many JSON values for its size").doesNotContain("[DONE]");
        assertThat(r.body().substring(r.body().lastIndexOf("data: "))).startsWith("data: {\"error\"");
    }
}
