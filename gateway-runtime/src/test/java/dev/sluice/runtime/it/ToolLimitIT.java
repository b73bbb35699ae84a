package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC OF-2 through a real server: an upstream that refuses a request for its number of tools
 * makes the combo fall back to its next target, and is skipped afterwards for requests over the
 * limit it stated, while requests within it still go there.
 */
class ToolLimitIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream small;
    MockUpstream large;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        small = MockUpstream.start();
        large = MockUpstream.start();
        sluice.addOpenAiCompatible("small", small.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("large", large.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
        HttpResponse<String> combo = sluice.send("POST", "/api/combos", ADMIN_KEY, "{\"name\":\"duo\",\"strategy\":\"priority\","
                + "\"targets\":[{\"model\":\"small/m\"},{\"model\":\"large/m\"}]}");
        assertThat(combo.statusCode()).as(combo.body()).isEqualTo(201);
    }

    @AfterEach
    void stop() {
        sluice.close();
        small.close();
        large.close();
    }

    private static String body(int tools) {
        StringBuilder t = new StringBuilder();
        for (int i = 0; i < tools; i++) {
            t.append(i == 0 ? "" : ",").append("{\"type\":\"function\",\"function\":{\"name\":\"f").append(i)
                    .append("\",\"parameters\":{\"type\":\"object\"}}}");
        }
        return "{\"model\":\"duo\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[" + t + "]}";
    }

    @Test
    void anUpstreamThatRefusesTheToolCountIsFallenBackFromThenSkipped_OF2() {
        small.enqueue(MockResponse.json(400, "{\"error\":{\"message\":\"Invalid 'tools': array too long. Expected an array with maximum"
                + " length 2, but got an array with length 3 instead.\",\"type\":\"invalid_request_error\",\"param\":\"tools\","
                + "\"code\":\"array_above_max_length\"}}"));
        large.setDefault(MockResponse.completion("from large"));
        small.setDefault(MockResponse.completion("from small"));

        HttpResponse<String> first = sluice.send("POST", "/v1/chat/completions", key, body(3));
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(read(first.body()).at("/choices/0/message/content").asText()).isEqualTo("from large");
        assertThat(small.requestCount()).isEqualTo(1);

        HttpResponse<String> again = sluice.send("POST", "/v1/chat/completions", key, body(3));
        assertThat(read(again.body()).at("/choices/0/message/content").asText()).isEqualTo("from large");
        assertThat(small.requestCount()).as("skipped: it takes at most 2 tools").isEqualTo(1);

        HttpResponse<String> within = sluice.send("POST", "/v1/chat/completions", key, body(2));
        assertThat(read(within.body()).at("/choices/0/message/content").asText()).isEqualTo("from small");

        // the refusal was the request's business: the small connection is not cooled
        assertThat(read(sluice.send("GET", "/api/resilience/cooldowns", ADMIN_KEY, null).body()).toString()).doesNotContain("unavailable");
    }
}
