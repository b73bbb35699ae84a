package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §16 through the built distribution with its real plugins: agentrouter's restatement and
 * error rules, and operator rules through {@code /api/settings}. Mock upstreams on loopback only.
 */
class ProviderRulesIT {

    private static final String QUOTA_403 = "{\"error\":{\"message\":\"用户额度不足\",\"type\":\"new_api_error\"}}";

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream first;
    private MockUpstream second;
    private SluiceClient client;
    private String clientKey;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() {
        first = MockUpstream.start();
        second = MockUpstream.start();
        client = new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
        clientKey = client.createKey(adminKey, "rules");
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
    }

    private JsonNode cooldownOf(String connectionId) {
        for (JsonNode c : client.expect(client.get("/api/resilience/cooldowns", adminKey), 200).get("data")) {
            if (c.get("connectionId").asText().equals(connectionId)) {
                return c;
            }
        }
        throw new AssertionError("not listed: " + connectionId);
    }

    @Test
    void agentrouterQuota403IsRestatedTo429WithSixtySecondsForTheClientAndThreeInternally_RS1_RS3_ER3() {
        String a = client.createConnection(adminKey, "agentrouter", "sk-ar-first-0123456789", first.baseUrl() + "/v1");
        String b = client.createConnection(adminKey, "agentrouter", "sk-ar-second-0123456789", second.baseUrl() + "/v1");
        first.enqueue(MockResponse.json(403, QUOTA_403));
        second.enqueue(MockResponse.json(403, QUOTA_403));

        // both keys out of quota: the client sees a retryable 429 with the rule's window, not a 403
        HttpResponse<String> both = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("agentrouter/claude-sonnet-4-5", false));
        JsonNode error = client.expect(both, 429);
        assertThat(both.headers().firstValue("Retry-After")).hasValue("60");
        assertThat(error.at("/error/type").asText()).isEqualTo("rate_limit_error");
        assertThat(error.at("/error/message").asText()).contains("用户额度不足");
        // internally each key cools for the API-key base, 3 s, as a transient quota on the connection
        for (String id : List.of(a, b)) {
            // (what persists after the 3 s ran out too: this test runs on a real clock)
            JsonNode c = cooldownOf(id);
            assertThat(c.get("remainingMs").asLong()).isBetween(0L, 3_000L);
            assertThat(c.get("backoffLevel").asInt()).isEqualTo(1);
            assertThat(c.get("lastErrorType").asText()).isEqualTo("quota_exhausted");
        }

        // one key out of quota: the request succeeds on the other
        client.expect(client.post("/api/resilience/cooldowns", adminKey, Map.of("all", true)), 200);
        first.enqueue(MockResponse.json(403, QUOTA_403));
        second.enqueue(MockResponse.completion("from the second key"));
        HttpResponse<String> served = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("agentrouter/claude-sonnet-4-5", false));
        JsonNode ok = client.expect(served, 200);
        assertThat(ok.at("/choices/0/message/content").asText()).isEqualTo("from the second key");
        assertThat(served.headers().firstValue("X-Sluice-Connection-Id")).hasValue(b);
    }

    @Test
    void modelAccessDenialIsNeverRestatedAndLeavesTheConnectionActive_RS4_ER4() {
        String a = client.createConnection(adminKey, "agentrouter", "sk-ar-first-0123456789", first.baseUrl() + "/v1");
        first.enqueue(MockResponse.json(403, "{\"error\":{\"message\":\"无权访问模型 claude-opus-4-1\"}}"));
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("agentrouter/claude-opus-4-1", false));
        client.expect(r, 403);
        assertThat(r.headers().firstValue("Retry-After")).isEmpty();
        assertThat(cooldownOf(a).get("testStatus").asText()).isEqualTo("active");
    }

    @Test
    void operatorRulesAreValidatedAndApplyWithoutRestart_ER5() {
        HttpResponse<String> bad = client.patch("/api/settings", adminKey,
                Map.of("providerErrorRules", List.of(Map.of("provider", "glm", "status", 400, "reason", "nonsense", "scope", "connection"))));
        assertThat(client.expect(bad, 400).at("/error/param").asText()).isEqualTo("providerErrorRules[0].reason");
        HttpResponse<String> badRegex = client.patch("/api/settings", adminKey, Map.of("providerErrorRules", List.of(Map.of("provider", "glm",
                "headers", Map.of("x-quota", "~(unclosed"), "scope", "model"))));
        assertThat(client.expect(badRegex, 400).at("/error/param").asText()).isEqualTo("providerErrorRules[0].headers.x-quota");
        HttpResponse<String> unknown = client.patch("/api/settings", adminKey, Map.of("noSuchSetting", true));
        assertThat(client.expect(unknown, 400).at("/error/param").asText()).isEqualTo("noSuchSetting");

        String a = client.createConnection(adminKey, "glm", "sk-glm-first-0123456789", first.baseUrl() + "/v1");
        client.expect(client.patch("/api/settings", adminKey, Map.of("providerErrorRules", List.of(Map.of("provider", "glm", "status", 400,
                "textMarkers", List.of("model is unavailable"), "scope", "connection", "baseCooldownMs", 300_000)))), 200);
        JsonNode listed = client.expect(client.get("/api/settings", adminKey), 200);
        assertThat(listed.at("/providerErrorRules/0/reason").asText()).isEqualTo("quota_exhausted");

        first.enqueue(MockResponse.json(400, "{\"error\":{\"message\":\"upstream request failed: model is unavailable.\"}}"));
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("glm/glm-4.6", false)), 400);
        JsonNode cooled = cooldownOf(a);
        assertThat(cooled.get("lastErrorType").asText()).isEqualTo("quota_exhausted");
        assertThat(cooled.get("remainingMs").asLong()).isBetween(299_000L, 300_000L);
    }

    @Test
    void minimaxAnswersAModelQuotaByHeaderAndItIsAQuotaNotARateLimit_ER1() {
        String m = client.createConnection(adminKey, "minimax", "sk-minimax-0123456789", first.baseUrl() + "/v1");
        first.enqueue(MockResponse.status(429, "{\"base_resp\":{\"status_code\":1002,\"status_msg\":\"rate limit exceeded\"}}")
                .header("x-model-quota-remaining", "abab6.5s=42,MiniMax-M2=0"));
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("minimax/MiniMax-M2", false)), 429);
        assertThat(cooldownOf(m).get("lastErrorType").asText()).isEqualTo("quota_exhausted");
    }

    private String opencodeConnection(String name, String localAddress, int priority) {
        JsonNode created = client.expect(client.post("/api/providers", adminKey, Map.of("provider", "opencode-go", "name", name,
                "authType", "apikey", "apiKey", "sk-oc-" + name + "-0123456789", "baseUrl", first.baseUrl() + "/v1",
                "localAddress", localAddress, "priority", priority)), 201);
        return created.get("id").asText();
    }

    @Test
    void a429OnOneEgressIpCoolsItsSiblingSoTheNextCallGoesStraightToTheOtherIp_EB1_EB2_EB3() {
        String a = opencodeConnection("a", "127.0.0.2", 1);
        String b = opencodeConnection("b", "127.0.0.2", 2);
        String c = opencodeConnection("c", "127.0.0.3", 3);
        first.setDefault(MockResponse.completion("ok"));
        // each connection serves once through its own address, so its egress IP is known (EB-2)
        for (String id : List.of(a, b, c)) {
            JsonNode key = client.expect(client.post("/api/keys", adminKey, Map.of("name", "only-" + id, "allowedConnections", List.of(id))), 201);
            client.expect(client.post("/v1/chat/completions", key.get("key").asText(), SluiceClient.chat("opencode-go/kimi-k2", false)), 200);
        }
        assertThat(first.requests()).extracting(r -> r.remoteAddress()).containsExactly("127.0.0.2", "127.0.0.2", "127.0.0.3");
        first.clear();

        first.enqueue(MockResponse.json(429, "{\"error\":{\"message\":\"Too many requests from this IP\"}}"));
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("opencode-go/kimi-k2", false));
        client.expect(r, 200);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).hasValue(c);
        // a's 429 cooled b (same IP) before rotation reached it: two calls, from .2 then .3, none from b
        assertThat(first.requests()).extracting(x -> x.remoteAddress()).containsExactly("127.0.0.2", "127.0.0.3");
        JsonNode sibling = cooldownOf(b);
        assertThat(sibling.get("lastErrorType").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(sibling.get("errorCode").asText()).isEqualTo("429");
        assertThat(sibling.get("rateLimitedUntil").asLong()).isEqualTo(cooldownOf(a).get("rateLimitedUntil").asLong());
        assertThat(cooldownOf(c).get("testStatus").asText()).isEqualTo("active");

        // the next request goes straight to the other IP
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("opencode-go/kimi-k2", false)), 200);
        assertThat(first.requests()).extracting(x -> x.remoteAddress()).containsExactly("127.0.0.2", "127.0.0.3", "127.0.0.3");
    }
}
