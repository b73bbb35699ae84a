package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The input bounds at their edges (issue 19, SEC-6; operator guide § 13): the body size
 * ({@code server.maxBodyBytes}), JSON nesting depth (1 000 levels), and the request headers'
 * size (16 KiB) — each a clear 4xx in the API's envelope just past the edge, served just inside it.
 */
class BoundsIT {

    private static final long MAX_BODY = 4_096;

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir, MAX_BODY);
        upstream = MockUpstream.start().setDefault(MockResponse.echoCompletion());
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    /** A chat body of exactly {@code size} bytes. */
    private static String bodyOf(int size) {
        String head = "{\"model\":\"alpha/m\",\"messages\":[{\"role\":\"user\",\"content\":\"";
        String tail = "\"}]}";
        return head + "x".repeat(size - head.length() - tail.length()) + tail;
    }

    @Test
    void theBodyLimitIsExact() {
        assertThat(sluice.send("POST", "/v1/chat/completions", key, bodyOf((int) MAX_BODY)).statusCode()).isEqualTo(200);
        HttpResponse<String> over = sluice.send("POST", "/v1/chat/completions", key, bodyOf((int) MAX_BODY + 1));
        assertThat(over.statusCode()).isEqualTo(413);
        assertThat(read(over.body()).at("/error/code").asText()).isEqualTo("request_too_large");
    }

    /** The content nested {@code depth} levels deep (arrays inside the message's content field). */
    private static String nested(int depth) {
        return "{\"model\":\"alpha/m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"metadata\":" + "[".repeat(depth)
                + "]".repeat(depth) + "}";
    }

    @Test
    void jsonNestingStopsAtAThousandLevels() {
        try (SluiceHarness big = new SluiceHarness(dir.resolve("big"))) {
            String k = big.addKey("{\"name\":\"it\"}");
            HttpResponse<String> deep = big.send("POST", "/v1/chat/completions", k, nested(1_001));
            assertThat(deep.statusCode()).isEqualTo(400);
            assertThat(read(deep.body()).at("/error/message").asText()).containsIgnoringCase("nesting");
            HttpResponse<String> inside = big.send("POST", "/v1/chat/completions", k, nested(990));
            assertThat(inside.statusCode()).as("within the depth limit the request is judged on its fields").isNotEqualTo(500);
            assertThat(read(inside.body()).at("/error/message").asText()).doesNotContainIgnoringCase("nesting");
        }
    }

    @Test
    void requestHeadersAreLimitedTo16KiB() {
        HttpResponse<String> inside = sluice.send("POST", "/v1/chat/completions", key, bodyOf(200), Map.of("X-Pad", "p".repeat(12_000)));
        assertThat(inside.statusCode()).isEqualTo(200);
        HttpResponse<String> over = sluice.send("POST", "/v1/chat/completions", key, bodyOf(200), Map.of("X-Pad", "p".repeat(20_000)));
        assertThat(over.statusCode()).isBetween(400, 431);
        assertThat(read(over.body()).at("/error/message").asText()).isNotBlank();
    }
}
