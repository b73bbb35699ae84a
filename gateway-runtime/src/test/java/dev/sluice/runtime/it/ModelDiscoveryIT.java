package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model discovery through a real Sluice (issue 32 §4): a custom OpenAI-compatible connection's
 * {@code GET /models} is read in the background on creation and on {@code POST .../test}; its ids
 * are listed as {@code provider/id}; a failed discovery keeps the last list and shows why; listing
 * never calls the upstream; {@code GET /v1/models/{id}} answers 200 for whatever chat would route.
 */
class ModelDiscoveryIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        upstream = MockUpstream.start().models("acme-large", "acme-small");
    }

    @AfterEach
    void stop() {
        if (sluice != null) {
            sluice.close();
        }
        upstream.close();
    }

    @Test
    void discoveredModelsAreListedAndAFailedDiscoveryKeepsThem() {
        sluice = new SluiceHarness(dir);
        key = sluice.addKey("{\"name\":\"it\"}");
        String id = sluice.addOpenAiCompatible("acme", upstream.baseUrl() + "/v1", 1);

        Awaitility.await().atMost(WAIT).until(() -> listed().contains("acme/acme-large"));
        assertThat(listed()).contains("acme/acme-large", "acme/acme-small");
        JsonNode large = model("acme/acme-large");
        assertThat(large.get("owned_by").asText()).isEqualTo("acme");
        assertThat(upstream.modelsRequests()).hasSize(1);
        assertThat(upstream.modelsRequests().getFirst().path()).isEqualTo("/v1/models");
        assertThat(upstream.modelsRequests().getFirst().header("authorization")).isEqualTo("Bearer sk-upstream-acme-1-abcdef");
        JsonNode view = read(sluice.send("GET", "/api/providers/" + id, ADMIN_KEY, null).body()).get("modelDiscovery");
        assertThat(view.get("count").asInt()).isEqualTo(2);
        assertThat(view.get("error").isNull()).isTrue();
        assertThat(view.get("at").asLong()).isPositive();

        // the upstream fails: the test answers at once, the last list stays, the failure shows
        upstream.modelsResponse(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        HttpResponse<String> test = sluice.send("POST", "/api/providers/" + id + "/test", ADMIN_KEY, "");
        assertThat(test.statusCode()).as(test.body()).isEqualTo(202);
        assertThat(read(test.body()).get("modelDiscoveryStarted").asBoolean()).isTrue();
        Awaitility.await().atMost(WAIT).until(() -> !read(sluice.send("GET", "/api/providers/" + id, ADMIN_KEY, null).body())
                .at("/modelDiscovery/error").isNull());
        view = read(sluice.send("GET", "/api/providers/" + id, ADMIN_KEY, null).body()).get("modelDiscovery");
        assertThat(view.get("error").asText()).isEqualTo("GET /models answered HTTP 500");
        assertThat(view.get("count").asInt()).isEqualTo(2);
        assertThat(listed()).contains("acme/acme-large", "acme/acme-small");

        // a later success replaces the list
        upstream.models("acme-next");
        sluice.send("POST", "/api/providers/" + id + "/test", ADMIN_KEY, "");
        Awaitility.await().atMost(WAIT).until(() -> listed().contains("acme/acme-next"));
        assertThat(listed()).doesNotContain("acme/acme-large");
    }

    @Test
    void listingAndRetrievingNeverCallTheUpstream() {
        sluice = new SluiceHarness(dir);
        key = sluice.addKey("{\"name\":\"it\"}");
        sluice.addOpenAiCompatible("acme", upstream.baseUrl() + "/v1", 1);
        Awaitility.await().atMost(WAIT).until(() -> listed().contains("acme/acme-large"));
        int discoveries = upstream.modelsRequests().size();
        for (int i = 0; i < 20; i++) {
            assertThat(listed()).contains("acme/acme-large");
            assertThat(sluice.send("GET", "/v1/models/acme/acme-small", key, null).statusCode()).isEqualTo(200);
        }
        assertThat(upstream.modelsRequests()).hasSize(discoveries);
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void everyModelChatWouldRouteIsRetrievableAndOnlyUnroutableOnesAre404_API2() {
        sluice = new SluiceHarness(dir);
        key = sluice.addKey("{\"name\":\"it\"}");
        sluice.addOpenAiCompatible("acme", upstream.baseUrl() + "/v1", 1);
        assertThat(sluice.send("PATCH", "/api/settings", ADMIN_KEY,
                "{\"modelAliases\":{\"fast\":\"acme/small\",\"claude-*\":\"acme/big\"}}").statusCode()).isEqualTo(200);
        HttpResponse<String> combo = sluice.send("POST", "/api/combos", ADMIN_KEY,
                "{\"name\":\"team\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"acme/anything\"}]}");
        assertThat(combo.statusCode()).as(combo.body()).isEqualTo(201);

        // a passthrough provider serves any model name: unlisted, never discovered, still routable
        assertThat(model("acme/never-listed").get("owned_by").asText()).isEqualTo("acme");
        assertThat(model("fast").get("owned_by").asText()).isEqualTo("alias");
        assertThat(model("claude-sonnet-4-5").get("owned_by").asText()).isEqualTo("alias");
        assertThat(model("team").get("owned_by").asText()).isEqualTo("combo");
        HttpResponse<String> anthropic = sluice.send("GET", "/v1/models/acme/never-listed", null, null,
                Map.of("x-api-key", key, "anthropic-version", "2023-06-01"));
        assertThat(anthropic.statusCode()).isEqualTo(200);
        assertThat(read(anthropic.body()).get("type").asText()).isEqualTo("model");

        // chat answers 404 for these, so retrieval does too
        for (String unroutable : List.of("nobody/model", "no-such-bare-model")) {
            HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody(unroutable, false));
            HttpResponse<String> get = sluice.send("GET", "/v1/models/" + unroutable, key, null);
            assertThat(chat.statusCode()).isEqualTo(404);
            assertThat(get.statusCode()).as(unroutable).isEqualTo(404);
            assertThat(read(get.body()).at("/error/code").asText()).isEqualTo("model_not_found");
        }
    }

    @Test
    void zeroIntervalTurnsDiscoveryOff() {
        sluice = SluiceHarness.withModelDiscoveryInterval(dir, Duration.ZERO);
        key = sluice.addKey("{\"name\":\"it\"}");
        String id = sluice.addOpenAiCompatible("acme", upstream.baseUrl() + "/v1", 1);
        HttpResponse<String> test = sluice.send("POST", "/api/providers/" + id + "/test", ADMIN_KEY, "");
        assertThat(test.statusCode()).isEqualTo(202);
        assertThat(read(test.body()).get("modelDiscoveryStarted").asBoolean()).isFalse();
        assertThat(read(sluice.send("GET", "/api/providers/" + id, ADMIN_KEY, null).body()).get("modelDiscovery").isNull()).isTrue();
        assertThat(upstream.modelsRequests()).isEmpty();
        assertThat(listed()).doesNotContain("acme/acme-large");
    }

    private List<String> listed() {
        return read(sluice.send("GET", "/v1/models", key, null).body()).get("data").findValuesAsText("id");
    }

    private JsonNode model(String id) {
        HttpResponse<String> r = sluice.send("GET", "/v1/models/" + id, key, null);
        assertThat(r.statusCode()).as(id + ": " + r.body()).isEqualTo(200);
        return read(r.body());
    }
}
