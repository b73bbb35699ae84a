package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model aliases through {@code PATCH /api/settings} (SPEC API-1, API-2): Claude Code's own model
 * ids reach a non-Claude upstream through a {@code claude-*} pattern, an exact alias is listed by
 * {@code /v1/models}, and a bad alias is a 400 naming it.
 */
class ModelAliasesIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    @Test
    void claudeCodesModelIdsReachANonClaudeUpstreamThroughAPattern_API1() throws Exception {
        HttpResponse<String> set = sluice.send("PATCH", "/api/settings", ADMIN_KEY,
                "{\"modelAliases\":{\"claude-*\":\"alpha/glm-4.6\",\"fast\":\"alpha/small\"}}");
        assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
        assertThat(read(set.body()).at("/modelAliases/claude-*").asText()).isEqualTo("alpha/glm-4.6");
        upstream.setDefault(MockResponse.completion("hi"));

        HttpResponse<String> messages = sluice.send("POST", "/v1/messages", null,
                "{\"model\":\"claude-opus-4-8\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                Map.of("x-api-key", key, "anthropic-version", "2023-06-01"));
        assertThat(messages.statusCode()).as(messages.body()).isEqualTo(200);
        assertThat(read(upstream.takeRequest(Duration.ofSeconds(5)).body()).get("model").asText()).isEqualTo("glm-4.6");

        HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", key, chatBody("fast", false));
        assertThat(chat.statusCode()).isEqualTo(200);
        assertThat(chat.headers().firstValue("X-Sluice-Model")).hasValue("small");

        HttpResponse<String> models = sluice.send("GET", "/v1/models", key, null);
        assertThat(read(models.body()).get("data").findValuesAsText("id")).contains("fast").doesNotContain("claude-*");
    }

    @Test
    void aBadAliasIsA400NamingItAndNothingChanges() {
        HttpResponse<String> r = sluice.send("PATCH", "/api/settings", ADMIN_KEY, "{\"modelAliases\":{\"fast\":\"has space\"}}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(read(r.body()).at("/error/param").asText()).isEqualTo("modelAliases.fast");
        assertThat(read(sluice.send("GET", "/api/settings", ADMIN_KEY, null).body()).get("modelAliases").size()).isZero();
    }
}
