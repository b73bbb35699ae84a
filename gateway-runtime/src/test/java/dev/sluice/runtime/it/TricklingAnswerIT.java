package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.SseEvents;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upstream that sends its headers and then trickles a body for ever cannot hold a non-streamed
 * attempt (issue 19): every executor's whole answer must arrive within the attempt timeout from its
 * headers (the upstream client bounds it, so every executor and the passthrough relays are
 * covered), and the request fails over.
 */
class TricklingAnswerIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream trickling;
    MockUpstream healthy;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir, Duration.ofSeconds(2));
        trickling = MockUpstream.start().setDefault(MockResponse.stream().thenRepeat(Duration.ofMillis(300), SseEvents.comment("...")));
        healthy = MockUpstream.start();
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        trickling.close();
        healthy.close();
    }

    @Test
    void aTricklingBodyFailsOverOnTheTranslatedAndThePassthroughPath() {
        // translated: the built-in OpenAI-compatible executor's whole answer
        sluice.addOpenAiCompatible("alpha", trickling.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("alpha", healthy.baseUrl() + "/v1", 2);
        // passthrough: the openai provider's /v1/responses relayed as the upstream wrote it
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-a\",\"baseUrl\":\"" + trickling.baseUrl()
                + "/v1\",\"priority\":1}");
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-b\",\"baseUrl\":\"" + healthy.baseUrl()
                + "/v1\",\"priority\":2}");
        healthy.enqueue(MockResponse.completion("from the second"));
        healthy.enqueue(MockResponse.json(200, RESPONSE));

        long t0 = System.nanoTime();
        HttpResponse<String> translated = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", false));
        assertThat(translated.statusCode()).as(translated.body()).isEqualTo(200);
        assertThat(read(translated.body()).at("/choices/0/message/content").asText()).isEqualTo("from the second");

        HttpResponse<String> passthrough = sluice.send("POST", "/v1/responses", key, "{\"model\":\"openai/gpt-5\",\"input\":\"hi\"}");
        assertThat(passthrough.statusCode()).as(passthrough.body()).isEqualTo(200);
        assertThat(read(passthrough.body()).get("id").asText()).isEqualTo("resp_second");
        assertThat((System.nanoTime() - t0) / 1_000_000).as("each trickling attempt bounded by the 2 s attempt timeout").isLessThan(15_000);
    }

    private static final String RESPONSE = "{\"id\":\"resp_second\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}";
}
