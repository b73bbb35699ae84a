package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What reaches an upstream besides the request (issue 32 §5): no {@code Proxy-Connection}, no
 * User-Agent of Sluice's or its HTTP client's own, and not the client's User-Agent (no built-in
 * provider's rules forward it), on chat, streamed chat, embeddings and model discovery.
 */
class UpstreamHeadersIT {

    private static final Map<String, String> CLIENT_HEADERS = Map.of("User-Agent", "opencode/1.18", "Proxy-Connection", "keep-alive");

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start().models("m1");
        sluice.addOpenAiCompatible("acme", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    @Test
    void noUserAgentAndNoProxyConnectionReachTheUpstream() throws Exception {
        upstream.enqueue(MockResponse.completion("hi"));
        upstream.enqueue(MockResponse.chatStream(List.of("h", "i"), Duration.ZERO));
        upstream.enqueue(MockResponse.embeddings());
        HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/m1", false), CLIENT_HEADERS);
        HttpResponse<String> stream = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/m1", true), CLIENT_HEADERS);
        HttpResponse<String> embeddings = sluice.send("POST", "/v1/embeddings", key, "{\"model\":\"acme/e1\",\"input\":\"hi\"}",
                CLIENT_HEADERS);
        assertThat(List.of(chat.statusCode(), stream.statusCode(), embeddings.statusCode())).containsOnly(200);

        List<RecordedRequest> seen = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            seen.add(upstream.takeRequest(Duration.ofSeconds(5)));
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !upstream.modelsRequests().isEmpty());
        seen.addAll(upstream.modelsRequests());
        for (RecordedRequest r : seen) {
            assertThat(r.header("user-agent")).as(r.method() + " " + r.path()).isNull();
            assertThat(r.header("proxy-connection")).as(r.method() + " " + r.path()).isNull();
        }
    }
}
