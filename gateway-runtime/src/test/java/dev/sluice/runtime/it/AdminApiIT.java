package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin API of SPEC §3 with the AD-1 shapes: connections, keys, plugins, health. */
class AdminApiIT {

    static final String SECRET = "sk-live-0123456789abcdefSECRET";

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    private HttpResponse<String> admin(String method, String path, String body) {
        return sluice.send(method, path, ADMIN_KEY, body);
    }

    @Test
    void connectionIsCreatedWithItsIdAndMaskedSecret_AD1_SEC2() {
        HttpResponse<String> r = admin("POST", "/api/providers", "{\"provider\":\"openai\",\"name\":\"main\",\"authType\":\"apikey\","
                + "\"apiKey\":\"" + SECRET + "\",\"priority\":2,\"maxConcurrent\":3,\"rateLimitOverrides\":{\"modelConcurrency\":{\"gpt-4o\":1}},"
                + "\"providerSpecificData\":{\"tier\":\"pro\"}}");

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).doesNotContain(SECRET);
        JsonNode c = read(r.body());
        assertThat(c.get("id").isTextual()).isTrue();
        assertThat(c.get("provider").asText()).isEqualTo("openai");
        assertThat(c.get("name").asText()).isEqualTo("main");
        assertThat(c.get("authType").asText()).isEqualTo("apikey");
        assertThat(c.get("apiKey").asText()).isEqualTo("sk-…CRET");
        assertThat(c.get("priority").asInt()).isEqualTo(2);
        assertThat(c.get("enabled").asBoolean()).isTrue();
        assertThat(c.get("maxConcurrent").asInt()).isEqualTo(3);
        assertThat(c.at("/rateLimitOverrides/modelConcurrency/gpt-4o").asInt()).isEqualTo(1);
        assertThat(c.at("/providerSpecificData/tier").asText()).isEqualTo("pro");
        assertThat(c.get("testStatus").asText()).isEqualTo("active");
        assertThat(c.get("backoffLevel").asInt()).isZero();

        String id = c.get("id").asText();
        HttpResponse<String> list = admin("GET", "/api/providers", null);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body()).doesNotContain(SECRET);
        assertThat(read(list.body()).get("data").get(0).get("id").asText()).isEqualTo(id);
        assertThat(read(admin("GET", "/api/providers/" + id, null).body()).get("name").asText()).isEqualTo("main");
    }

    @Test
    void connectionDefaultsArePriorityOneEnabledNoCap_DM1() {
        JsonNode c = read(admin("POST", "/api/providers", "{\"provider\":\"glm\",\"authType\":\"apikey\",\"apiKey\":\"k-123\"}").body());
        assertThat(c.get("priority").asInt()).isEqualTo(1);
        assertThat(c.get("enabled").asBoolean()).isTrue();
        assertThat(c.get("maxConcurrent").isNull()).isTrue();
        assertThat(c.get("disableCooling").asBoolean()).isFalse();
        assertThat(c.get("rateLimitProtection").asBoolean()).isFalse();
        assertThat(c.get("apiKey").asText()).isEqualTo("****");
    }

    @Test
    void invalidConnectionsAre400NamingTheField_AD1() {
        assertField(admin("POST", "/api/providers", "{\"authType\":\"apikey\",\"apiKey\":\"k\"}"), "provider");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"Bad Id\",\"authType\":\"apikey\",\"apiKey\":\"k\"}"), "provider");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"magic\",\"apiKey\":\"k\"}"), "authType");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\"}"), "apiKey");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"oauth\"}"), "oauth");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"deepseek\",\"authType\":\"apikey\",\"apiKey\":\"k\"}"), "baseUrl");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\",\"priority\":0}"), "priority");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\",\"baseUrl\":\"ftp://x\"}"), "baseUrl");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\",\"enabled\":\"yes\"}"), "enabled");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\",\"rateLimitOverrides\":{\"nope\":1}}"),
                "rateLimitOverrides.nope");
        HttpResponse<String> notJson = admin("POST", "/api/providers", "nope");
        assertThat(notJson.statusCode()).isEqualTo(400);
    }

    private static void assertField(HttpResponse<String> r, String field) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode err = read(r.body()).get("error");
        assertThat(err.get("param").asText()).isEqualTo(field);
        assertThat(err.get("message").asText()).contains(field.contains(".") ? field.substring(0, field.indexOf('.')) : field);
    }

    @Test
    void customProviderNeedsOnlyABaseUrl_DM2b() {
        HttpResponse<String> r = admin("POST", "/api/providers",
                "{\"provider\":\"deepseek\",\"authType\":\"apikey\",\"apiKey\":\"k-1\",\"baseUrl\":\"https://api.deepseek.example/v1/\"}");
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(read(r.body()).get("baseUrl").asText()).isEqualTo("https://api.deepseek.example/v1");
    }

    @Test
    void putReplacesPatchMergesAndNeitherTouchesRateLimitProtectionOrSecrets_RQ9() {
        String id = read(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"" + SECRET
                + "\",\"name\":\"a\",\"priority\":4}").body()).get("id").asText();

        HttpResponse<String> put = admin("PUT", "/api/providers/" + id,
                "{\"provider\":\"openai\",\"authType\":\"apikey\",\"name\":\"b\",\"rateLimitProtection\":true}");
        assertThat(put.statusCode()).isEqualTo(200);
        JsonNode afterPut = read(put.body());
        assertThat(afterPut.get("name").asText()).isEqualTo("b");
        assertThat(afterPut.get("priority").asInt()).isEqualTo(1);
        assertThat(afterPut.get("rateLimitProtection").asBoolean()).isFalse();
        assertThat(afterPut.get("apiKey").asText()).isEqualTo("sk-…CRET");

        HttpResponse<String> patch = admin("PATCH", "/api/providers/" + id, "{\"enabled\":false,\"priority\":9}");
        assertThat(patch.statusCode()).isEqualTo(200);
        JsonNode afterPatch = read(patch.body());
        assertThat(afterPatch.get("enabled").asBoolean()).isFalse();
        assertThat(afterPatch.get("priority").asInt()).isEqualTo(9);
        assertThat(afterPatch.get("name").asText()).isEqualTo("b");
        assertThat(sluice.server.connections().find(id).orElseThrow().apiKey()).isEqualTo(SECRET);

        assertField(admin("PATCH", "/api/providers/" + id, "{\"priority\":-3}"), "priority");
    }

    @Test
    void deleteRemovesAndUnknownIdsAre404() {
        String id = read(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\"}").body())
                .get("id").asText();
        assertThat(admin("DELETE", "/api/providers/" + id, null).statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/api/providers/" + id, null).statusCode()).isEqualTo(404);
        assertThat(admin("DELETE", "/api/providers/" + id, null).statusCode()).isEqualTo(404);
        assertThat(admin("PUT", "/api/providers/nope", "{\"provider\":\"openai\",\"apiKey\":\"k\"}").statusCode()).isEqualTo(404);
        assertThat(admin("PATCH", "/api/providers/nope", "{}").statusCode()).isEqualTo(404);
    }

    @Test
    void keySecretIsShownOnceAndStoredHashed_AD1_SEC1() {
        HttpResponse<String> r = admin("POST", "/api/keys", "{\"name\":\"ci\",\"scopes\":[\"admin\"]}");
        assertThat(r.statusCode()).isEqualTo(201);
        JsonNode k = read(r.body());
        String secret = k.get("key").asText();
        assertThat(secret).startsWith("sk-sluice-");
        assertThat(k.get("name").asText()).isEqualTo("ci");
        assertThat(k.get("scopes").get(0).asText()).isEqualTo("admin");
        assertThat(k.get("allowedConnections").isArray()).isTrue();

        HttpResponse<String> list = admin("GET", "/api/keys", null);
        assertThat(list.body()).doesNotContain(secret);
        assertThat(read(list.body()).get("data").get(0).get("id").asText()).isEqualTo(k.get("id").asText());

        // a key with the admin scope may use the admin API
        assertThat(sluice.send("GET", "/api/providers", secret, null).statusCode()).isEqualTo(200);
        assertThat(admin("DELETE", "/api/keys/" + k.get("id").asText(), null).statusCode()).isEqualTo(200);
        assertThat(sluice.send("GET", "/api/providers", secret, null).statusCode()).isEqualTo(401);
        assertThat(admin("DELETE", "/api/keys/" + k.get("id").asText(), null).statusCode()).isEqualTo(404);
    }

    @Test
    void invalidKeysAre400NamingTheField() {
        assertField(admin("POST", "/api/keys", "{}"), "name");
        assertField(admin("POST", "/api/keys", "{\"name\":\"x\",\"scopes\":[\"root\"]}"), "scopes");
        assertField(admin("POST", "/api/keys", "{\"name\":\"x\",\"allowedConnections\":[\"missing\"]}"), "allowedConnections");
    }

    @Test
    void clientKeysWithoutAdminScopeAreRefusedByAdminRoutes_SEC4() {
        String client = sluice.addKey("{\"name\":\"client\"}");
        HttpResponse<String> r = sluice.send("GET", "/api/providers", client, null);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("insufficient_scope");
        assertThat(sluice.send("GET", "/api/keys", null, null).statusCode()).isEqualTo(401);
        assertThat(sluice.send("GET", "/api/plugins", client, null).statusCode()).isEqualTo(403);
    }

    @Test
    void pluginsEndpointListsSpiVersionBuiltinsAndFailures() {
        HttpResponse<String> r = admin("GET", "/api/plugins", null);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode body = read(r.body());
        assertThat(body.get("spiVersion").asInt()).isEqualTo(1);
        assertThat(body.get("data").isArray()).isTrue();
        assertThat(body.get("failures").isArray()).isTrue();
        assertThat(body.get("builtinProviders").toString()).contains("\"openai\"", "\"glm\"", "\"minimax\"");
        // issue 33: each provider names the providerSpecificData members its connections are read for
        JsonNode glm = body.at("/builtinProviders/1");
        assertThat(glm.get("id").asText()).isEqualTo("glm");
        assertThat(glm.get("connectionFields").toString()).isEqualTo(body.get("customProviderConnectionFields").toString());
        assertThat(glm.at("/connectionFields/0/name").asText()).isEqualTo("models");
        assertThat(glm.at("/connectionFields/0/type").asText()).isEqualTo("string_list");
        assertThat(glm.at("/connectionFields/1/name").asText()).isEqualTo("responsesApi");
        assertThat(glm.at("/connectionFields/1/type").asText()).isEqualTo("boolean");
        assertThat(glm.at("/connectionFields/1/description").asText()).contains("/v1/responses");
    }

    @Test
    void healthNeedsNoKey() {
        HttpResponse<String> live = sluice.send("GET", "/health/live", null, null);
        assertThat(live.statusCode()).isEqualTo(200);
        assertThat(read(live.body()).get("status").asText()).isEqualTo("UP");
        HttpResponse<String> ready = sluice.send("GET", "/health/ready", null, null);
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(read(ready.body()).at("/checks/database").asText()).isEqualTo("UP");
    }

    @Test
    void adminWritesSurviveARestart_DM4() {
        String id = read(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"" + SECRET + "\"}").body())
                .get("id").asText();
        String client = sluice.addKey("{\"name\":\"keep\"}");
        sluice.close();

        sluice = new SluiceHarness(dir);
        assertThat(read(admin("GET", "/api/providers/" + id, null).body()).get("apiKey").asText()).isEqualTo("sk-…CRET");
        assertThat(sluice.server.connections().find(id).orElseThrow().apiKey()).isEqualTo(SECRET);
        assertThat(sluice.send("GET", "/v1/models", client, null).statusCode()).isEqualTo(200);
    }

    @Test
    void echoingTheMaskedSecretBackKeepsTheStoredOne() {
        String id = read(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"" + SECRET + "\"}").body())
                .get("id").asText();
        JsonNode shown = read(admin("GET", "/api/providers/" + id, null).body());
        ((com.fasterxml.jackson.databind.node.ObjectNode) shown).put("priority", 5);

        HttpResponse<String> put = admin("PUT", "/api/providers/" + id, shown.toString());

        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(sluice.server.connections().find(id).orElseThrow().apiKey()).isEqualTo(SECRET);
        assertThat(read(put.body()).get("priority").asInt()).isEqualTo(5);
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"****\"}"), "apiKey");
    }

    @Test
    void switchingAuthTypeDropsTheOtherCredential_DM2() {
        String id = read(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"oauth\","
                + "\"oauth\":{\"accessToken\":\"old-oauth-token-123456\",\"expiresAt\":1}}").body()).get("id").asText();

        HttpResponse<String> patch = admin("PATCH", "/api/providers/" + id, "{\"authType\":\"apikey\",\"apiKey\":\"sk-new-0123456789abcdef\"}");

        assertThat(patch.statusCode()).isEqualTo(200);
        var stored = sluice.server.connections().find(id).orElseThrow();
        assertThat(stored.oauth()).isNull();
        assertThat(stored.apiKey()).isEqualTo("sk-new-0123456789abcdef");
        assertThat(read(patch.body()).has("oauth")).isFalse();
    }

    @Test
    void patchMergesNestedObjectsAndOAuthFieldsKeyByKey_SE4() {
        String id = read(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"oauth\","
                + "\"oauth\":{\"accessToken\":\"token-0123456789abcdef\"},\"rateLimitOverrides\":{\"maxWaitMs\":5000}}").body())
                .get("id").asText();

        HttpResponse<String> patch = admin("PATCH", "/api/providers/" + id,
                "{\"rateLimitOverrides\":{\"modelConcurrency\":{\"gpt-4o\":1}},\"oauth\":{\"expiresAt\":1767225600000}}");

        assertThat(patch.statusCode()).as(patch.body()).isEqualTo(200);
        JsonNode c = read(patch.body());
        assertThat(c.at("/rateLimitOverrides/maxWaitMs").asInt()).isEqualTo(5000);
        assertThat(c.at("/rateLimitOverrides/modelConcurrency/gpt-4o").asInt()).isEqualTo(1);
        var oauth = sluice.server.connections().find(id).orElseThrow().oauth();
        assertThat(oauth.accessToken()).isEqualTo("token-0123456789abcdef");
        assertThat(oauth.expiresAt()).isEqualTo(1767225600000L);
    }

    @Test
    void unusableValuesAreRefusedNamingTheField() {
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-abc def\"}"), "apiKey");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\",\"localAddress\":\"999.999.1.1\"}"),
                "localAddress");
        assertField(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\","
                + "\"rateLimitOverrides\":{\"maxConcurrent\":99999999999999999999999}}"), "rateLimitOverrides.maxConcurrent");
        assertThat(admin("POST", "/api/providers", "{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"k\",\"localAddress\":\"::1\"}")
                .statusCode()).isEqualTo(201);
    }

    @Test
    void credentialsInUrlsAreMaskedInResponses_SEC2() {
        HttpResponse<String> r = admin("POST", "/api/providers", "{\"provider\":\"custom\",\"authType\":\"apikey\",\"apiKey\":\"k\","
                + "\"baseUrl\":\"https://user:pw-secret@host.example/v1\",\"proxyUrl\":\"http://u:proxy-secret@proxy.example:8080\"}");
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).doesNotContain("pw-secret").doesNotContain("qs-secret").doesNotContain("proxy-secret");
        String id = read(r.body()).get("id").asText();
        assertThat(sluice.server.connections().find(id).orElseThrow().baseUrl()).contains("pw-secret");
        admin("PATCH", "/api/providers/" + id, "{\"priority\":2}");
        assertThat(sluice.server.connections().find(id).orElseThrow().baseUrl()).isEqualTo("https://user:pw-secret@host.example/v1");
    }

    @Test
    void aSecondServerOnATakenPortFailsToStartInsteadOfPretending_SH5() {
        int taken = sluice.server.port();
        var config = new dev.sluice.runtime.config.SluiceConfig("127.0.0.1", taken, dir.resolve("other"), dir.resolve("plugins"), false,
                ADMIN_KEY, null, 1024, java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1), java.util.Map.of());
        var console = new java.io.ByteArrayOutputStream();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dev.sluice.runtime.SluiceServer.start(config, sluice.clock, ModuleLayer.boot(),
                new java.io.PrintStream(console, true))).isInstanceOf(IllegalStateException.class).hasMessageContaining(String.valueOf(taken));
        assertThat(console.toString()).doesNotContain("Sluice listening");
    }
}
