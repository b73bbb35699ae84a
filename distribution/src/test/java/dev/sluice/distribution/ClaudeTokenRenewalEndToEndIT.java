package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36: a Claude subscription connection's token is renewed by the host from the shipped
 * plugin's login description (the plugin has no refresher of its own any more), through the built
 * zip: Anthropic refuses the old token with {@code 401}, the host sends Claude Code's JSON refresh
 * grant to {@code plugins.settings.claude.oauthTokenUrl} and the request is sent once more with the
 * new token.
 */
class ClaudeTokenRenewalEndToEndIT {

    private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"served\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
            + "\"usage\":{\"input_tokens\":5,\"output_tokens\":2}}";
    private static final String UNAUTHORIZED = "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
            + "\"message\":\"OAuth token has expired.\"}}";
    private static final String OLD = "sk-ant-oat01-old-0123456789";
    private static final String NEW = "sk-ant-oat01-new-0123456789";

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @Test
    void anthropics401IsAnsweredByTheHostsRefreshAndTheRequestIsSentOnceMore() throws Exception {
        try (MockUpstream anthropic = MockUpstream.start(); MockUpstream auth = MockUpstream.start()) {
            auth.setDefault(MockResponse.json(200, "{\"access_token\":\"" + NEW + "\",\"refresh_token\":\"sk-ant-ort01-new\","
                    + "\"expires_in\":28800}"));
            anthropic.setDefault(MockResponse.choosing(r -> ("Bearer " + NEW).equals(r.header("authorization"))
                    ? MockResponse.json(200, ANSWER) : MockResponse.json(401, UNAUTHORIZED)));
            Path config = Files.writeString(work.resolve("sluice.yaml"), """
                    plugins:
                      settings:
                        claude:
                          oauthTokenUrl: "%s/v1/oauth/token"
                    """.formatted(auth.baseUrl()));
            Map<String, String> env = SluiceProcess.env(work.resolve("data"), adminKey);
            env.put("SLUICE_CONFIG", config.toString());
            SluiceClient client = new SluiceClient(servers.start(home, env));
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("provider", "claude");
            body.put("authType", "oauth");
            body.put("oauth", Map.of("accessToken", OLD, "refreshToken", "sk-ant-ort01-old", "expiresAt", 4_102_444_800_000L));
            body.put("baseUrl", anthropic.baseUrl());
            String id = client.expect(client.post("/api/providers", adminKey, body), 201).get("id").asText();
            String key = client.createKey(adminKey, "it");

            JsonNode answer = client.expect(client.post("/v1/chat/completions", key, SluiceClient.chat("claude/claude-sonnet-4-5", false)),
                    200);

            assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("served");
            List<RecordedRequest> grants = auth.requests();
            assertThat(grants).hasSize(1);
            JsonNode grant = SluiceClient.JSON.readTree(grants.get(0).body());
            assertThat(grant.path("grant_type").asText()).isEqualTo("refresh_token");
            assertThat(grant.path("refresh_token").asText()).isEqualTo("sk-ant-ort01-old");
            assertThat(grant.path("client_id").asText()).as("Claude Code's client id, the login's default")
                    .isEqualTo("9d1c250a-e61b-44d9-88ed-5944d1962f5e");
            assertThat(anthropic.requests().stream().filter(r -> r.path().equals("/v1/messages")).map(r -> r.header("authorization")))
                    .containsExactly("Bearer " + OLD, "Bearer " + NEW);
            JsonNode shown = client.expect(client.get("/api/providers/" + id, adminKey), 200);
            assertThat(shown.toString()).doesNotContain(NEW).doesNotContain("sk-ant-ort01-new");
        }
    }
}
