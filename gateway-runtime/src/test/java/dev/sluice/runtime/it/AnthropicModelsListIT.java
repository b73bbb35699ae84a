package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /v1/models} in Anthropic's list shape when the request carries {@code anthropic-version} (SPEC API-2). */
class AnthropicModelsListIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-test-0123456789\"}");
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    private JsonNode list(String query) {
        HttpResponse<String> r = sluice.send("GET", "/v1/models" + query, null, null, Map.of("x-api-key", key, "anthropic-version", "2023-06-01"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body());
    }

    @Test
    void theAnthropicShapePagesWithLimitAndAfterIdAndBeforeId_API2() {
        JsonNode openAi = read(sluice.send("GET", "/v1/models", key, null).body());
        assertThat(openAi.get("object").asText()).isEqualTo("list");
        int all = openAi.get("data").size();
        assertThat(all).isGreaterThan(2);

        JsonNode first = list("?limit=2");
        assertThat(first.get("data")).hasSize(2);
        assertThat(first.at("/data/0/type").asText()).isEqualTo("model");
        assertThat(first.at("/data/0/display_name").isTextual()).isTrue();
        assertThat(first.at("/data/0/created_at").asText()).endsWith("Z");
        assertThat(first.get("has_more").asBoolean()).isTrue();
        assertThat(first.get("first_id").asText()).isEqualTo(first.at("/data/0/id").asText());
        assertThat(first.get("last_id").asText()).isEqualTo(first.at("/data/1/id").asText());

        JsonNode next = list("?limit=1000&after_id=" + first.get("last_id").asText());
        assertThat(next.get("data")).hasSize(all - 2);
        assertThat(next.get("has_more").asBoolean()).isFalse();

        JsonNode before = list("?limit=5&before_id=" + next.get("first_id").asText());
        assertThat(before.get("last_id").asText()).isEqualTo(first.get("last_id").asText());

        HttpResponse<String> bad = sluice.send("GET", "/v1/models?limit=0", null, null, Map.of("x-api-key", key, "anthropic-version", "2023-06-01"));
        assertThat(bad.statusCode()).isEqualTo(400);
    }

    /** The Anthropic SDK reads {@code error.type} of Anthropic's envelope: an answer in Anthropic's shape has errors in it too. */
    @Test
    void errorsToAnAnthropicClientComeInAnthropicsEnvelope_API2() {
        Map<String, String> anthropic = Map.of("x-api-key", key, "anthropic-version", "2023-06-01");
        HttpResponse<String> missing = sluice.send("GET", "/v1/models/no-such-model-zzz", null, null, anthropic);
        assertThat(missing.statusCode()).isEqualTo(404);
        JsonNode m = read(missing.body());
        assertThat(m.path("type").asText()).as(missing.body()).isEqualTo("error");
        assertThat(m.at("/error/type").asText()).isEqualTo("not_found_error");
        assertThat(m.at("/error/message").asText()).contains("no-such-model-zzz");
        assertThat(m.at("/error/code").isMissingNode()).as(missing.body()).isTrue();

        JsonNode bad = read(sluice.send("GET", "/v1/models?limit=0", null, null, anthropic).body());
        assertThat(bad.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(bad.at("/error/message").asText()).contains("limit");

        HttpResponse<String> wrongKey = sluice.send("GET", "/v1/models", null, null,
                Map.of("x-api-key", "sk-not-a-key", "anthropic-version", "2023-06-01"));
        assertThat(wrongKey.statusCode()).isEqualTo(401);
        assertThat(read(wrongKey.body()).at("/error/type").asText()).isEqualTo("authentication_error");
        assertThat(read(wrongKey.body()).path("type").asText()).isEqualTo("error");

        // without anthropic-version: the OpenAI envelope, as on every other route
        HttpResponse<String> openAi = sluice.send("GET", "/v1/models/no-such-model-zzz", key, null);
        assertThat(openAi.statusCode()).isEqualTo(404);
        JsonNode o = read(openAi.body());
        assertThat(o.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(o.at("/error/code").asText()).isEqualTo("model_not_found");
        assertThat(o.at("/error/param").asText()).isEqualTo("model");
        assertThat(o.get("type")).isNull();
    }
}
