package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33: a client key limited to some models ({@code allowedModels}), set on creation and
 * changed by {@code PATCH /api/keys/{id}}; a request for another model is refused before anything
 * is sent upstream, in each client API's envelope.
 */
class KeyAllowedModelsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        sluice.addOpenAiCompatible("mockai", upstream.baseUrl() + "/v1", 1);
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private long chats() {
        return upstream.requests().stream().filter(r -> r.method().equals("POST")).count();
    }

    private List<String> listed(String key) {
        List<String> ids = new ArrayList<>();
        read(sluice.send("GET", "/v1/models", key, null).body()).get("data").forEach(m -> ids.add(m.get("id").asText()));
        return ids;
    }

    @Test
    void aKeyLimitedToSomeModelsIsRefusedOthersWith403InBothEnvelopesAndNothingGoesUpstream_issue33() {
        HttpResponse<String> created = sluice.send("POST", "/api/keys", ADMIN_KEY,
                "{\"name\":\"team\",\"allowedModels\":[\"mockai/allowed\",\"mockai/family-*\"]}");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode key = read(created.body());
        assertThat(key.get("allowedModels")).hasSize(2);
        assertThat(key.get("allowedModels").get(0).asText()).isEqualTo("mockai/allowed");
        String secret = key.get("key").asText();

        upstream.enqueue(MockResponse.completion("one"));
        upstream.enqueue(MockResponse.completion("two"));
        assertThat(sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/allowed", false)).statusCode()).isEqualTo(200);
        assertThat(sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/family-7", false)).statusCode()).isEqualTo(200);
        long served = chats();

        HttpResponse<String> refused = sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/other", false));
        assertThat(refused.statusCode()).isEqualTo(403);
        JsonNode error = read(refused.body()).get("error");
        assertThat(error.get("type").asText()).isEqualTo("permission_error");
        assertThat(error.get("code").asText()).isEqualTo("model_not_allowed");
        assertThat(error.get("param").asText()).isEqualTo("model");
        assertThat(error.get("message").asText()).contains("'mockai/other'").contains("allowedModels");

        HttpResponse<String> messages = sluice.send("POST", "/v1/messages", null,
                "{\"model\":\"mockai/other\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                Map.of("x-api-key", secret, "anthropic-version", "2023-06-01"));
        assertThat(messages.statusCode()).isEqualTo(403);
        JsonNode anthropic = read(messages.body());
        assertThat(anthropic.get("type").asText()).isEqualTo("error");
        assertThat(anthropic.at("/error/type").asText()).isEqualTo("permission_error");
        assertThat(chats()).as("a refused model is never sent upstream").isEqualTo(served);

        // the model list shows only what the key may ask for; GET /v1/models/{id} of another is a 404
        assertThat(listed(secret)).allMatch(id -> id.equals("mockai/allowed") || id.startsWith("mockai/family-"));
        assertThat(sluice.send("GET", "/v1/models/mockai/other", secret, null).statusCode()).isEqualTo(404);
        assertThat(sluice.send("GET", "/v1/models/mockai/allowed", secret, null).statusCode()).isEqualTo(200);
    }

    @Test
    void patchChangesAKeysModelsNameAndConnectionsAndKeepsItsSecret_issue33() {
        HttpResponse<String> created = sluice.send("POST", "/api/keys", ADMIN_KEY, "{\"name\":\"team\",\"allowedModels\":[\"mockai/a\"]}");
        JsonNode key = read(created.body());
        String id = key.get("id").asText();
        String secret = key.get("key").asText();
        assertThat(sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/b", false)).statusCode()).isEqualTo(403);

        HttpResponse<String> patched = sluice.send("PATCH", "/api/keys/" + id, ADMIN_KEY, "{\"name\":\"team-b\",\"allowedModels\":[\"mockai/b\"]}");
        assertThat(patched.statusCode()).isEqualTo(200);
        JsonNode after = read(patched.body());
        assertThat(after.get("name").asText()).isEqualTo("team-b");
        assertThat(after.get("allowedModels").toString()).isEqualTo("[\"mockai/b\"]");
        assertThat(after.has("key")).as("the secret is never shown again").isFalse();
        assertThat(after.get("keyPreview").asText()).isEqualTo(key.get("keyPreview").asText());

        upstream.enqueue(MockResponse.completion("b"));
        assertThat(sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/b", false)).statusCode()).isEqualTo(200);
        assertThat(sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/a", false)).statusCode()).isEqualTo(403);

        // an empty list allows every model again
        assertThat(sluice.send("PATCH", "/api/keys/" + id, ADMIN_KEY, "{\"allowedModels\":[]}").statusCode()).isEqualTo(200);
        upstream.enqueue(MockResponse.completion("a"));
        assertThat(sluice.send("POST", "/v1/chat/completions", secret, chatBody("mockai/a", false)).statusCode()).isEqualTo(200);
        assertThat(read(sluice.send("GET", "/api/keys", ADMIN_KEY, null).body()).at("/data/0/name").asText()).isEqualTo("team-b");
    }

    @Test
    void badAllowedModelsAndUnknownKeysAreNamedAt400And404_issue33() {
        String id = read(sluice.send("POST", "/api/keys", ADMIN_KEY, "{\"name\":\"k\"}").body()).get("id").asText();
        for (String body : List.of("{\"allowedModels\":\"mockai/a\"}", "{\"allowedModels\":[\"a*b\"]}", "{\"allowedModels\":[\" a\"]}",
                "{\"allowedModels\":[\"\"]}", "{\"allowedModels\":[3]}")) {
            HttpResponse<String> r = sluice.send("PATCH", "/api/keys/" + id, ADMIN_KEY, body);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(read(r.body()).at("/error/param").asText()).as(body).isEqualTo("allowedModels");
        }
        HttpResponse<String> secret = sluice.send("PATCH", "/api/keys/" + id, ADMIN_KEY, "{\"key\":\"sk-new\"}");
        assertThat(secret.statusCode()).isEqualTo(400);
        assertThat(read(secret.body()).at("/error/param").asText()).isEqualTo("key");
        assertThat(sluice.send("PATCH", "/api/keys/" + id, ADMIN_KEY, "{\"allowedConnections\":[\"nope\"]}").statusCode()).isEqualTo(400);
        assertThat(sluice.send("PATCH", "/api/keys/" + id, ADMIN_KEY, "{\"name\":\"\"}").statusCode()).isEqualTo(400);
        HttpResponse<String> missing = sluice.send("PATCH", "/api/keys/nope", ADMIN_KEY, "{\"name\":\"x\"}");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(read(missing.body()).at("/error/code").asText()).isEqualTo("not_found");
        assertThat(sluice.send("PATCH", "/api/keys/" + id, null, "{\"name\":\"x\"}").statusCode()).isEqualTo(401);
    }
}
