package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
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
 * Issue 36, the gemini plugin in the real distribution: Gemini CLI's Google login run by the host
 * against a loopback mock authorization server (client id and secret, PKCE challenge, state and
 * grant types checked there), and the login's connection served by a loopback mock Code Assist
 * backend, its token refreshed at the plugin's token URL when it is due. Every endpoint is pointed
 * at the mocks by {@code plugins.settings.gemini.*}; nothing reaches the internet.
 */
class GeminiLoginEndToEndIT {

    private static final String CLIENT_ID = "test-client.apps.googleusercontent.com";
    private static final String CLIENT_SECRET = "GOCSPX-test-secret";
    private static final Duration TAKE = Duration.ofSeconds(5);

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream auth;
    private MockUpstream codeAssist;
    private SluiceClient client;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() throws Exception {
        auth = MockUpstream.start();
        codeAssist = MockUpstream.start();
        Path config = Files.writeString(work.resolve("sluice.yaml"), """
                plugins:
                  settings:
                    gemini:
                      oauthAuthorizeUrl: %s/o/oauth2/v2/auth
                      oauthTokenUrl: %s/token
                      oauthClientId: %s
                      oauthClientSecret: %s
                      upstreamBaseUrl: %s
                """.formatted(auth.baseUrl(), auth.baseUrl(), CLIENT_ID, CLIENT_SECRET, codeAssist.baseUrl()));
        Map<String, String> env = SluiceProcess.env(work.resolve("data"), adminKey);
        env.put("SLUICE_CONFIG", config.toString());
        client = new SluiceClient(servers.start(home, env));
    }

    @AfterEach
    void stopMocks() {
        auth.close();
        codeAssist.close();
    }

    private static Map<String, String> form(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String idToken(String email) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(("{\"iss\":\"https://accounts.google.com\",\"sub\":\"42\",\"email\":\"" + email + "\"}")
                        .getBytes(StandardCharsets.UTF_8)) + ".c2ln";
    }

    private static String s256(String verifier) throws Exception {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    }

    /** Logs in through the callback; the token answer's access token expires in {@code expiresIn} seconds. */
    private String login(long expiresIn) throws Exception {
        JsonNode flow = client.expect(client.post("/api/oauth/gemini/start", adminKey, Map.of()), 200);
        assertThat(flow.path("type").asText()).isEqualTo("pkce");
        String authorizeUrl = flow.path("authorizeUrl").asText();
        assertThat(authorizeUrl).startsWith(auth.baseUrl() + "/o/oauth2/v2/auth?");
        Map<String, String> q = form(URI.create(authorizeUrl).getRawQuery());
        assertThat(q).containsEntry("client_id", CLIENT_ID).containsEntry("response_type", "code")
                .containsEntry("redirect_uri", "https://codeassist.google.com/authcode").containsEntry("access_type", "offline")
                .containsEntry("code_challenge_method", "S256").containsKeys("state", "code_challenge");
        assertThat(q.get("scope").split(" ")).contains("https://www.googleapis.com/auth/cloud-platform",
                "https://www.googleapis.com/auth/userinfo.email");
        assertThat(q).doesNotContainKey("client_secret");

        auth.enqueue(MockResponse.json(200, "{\"access_token\":\"ya29.login-token\",\"refresh_token\":\"1//refresh-token\","
                + "\"expires_in\":" + expiresIn + ",\"token_type\":\"Bearer\",\"scope\":\"https://www.googleapis.com/auth/cloud-platform\","
                + "\"id_token\":\"" + idToken("dev@example.com") + "\"}"));
        HttpResponse<String> page = client.get("/api/oauth/callback?code=auth-code-1&state="
                + URLEncoder.encode(q.get("state"), StandardCharsets.UTF_8), null);
        assertThat(page.statusCode()).as(() -> client.describe(page)).isEqualTo(200);
        assertThat(page.body()).contains("Connected");

        RecordedRequest exchange = auth.takeRequest(TAKE);
        assertThat(exchange.path()).isEqualTo("/token");
        Map<String, String> grant = form(exchange.body());
        assertThat(grant).containsEntry("grant_type", "authorization_code").containsEntry("code", "auth-code-1")
                .containsEntry("client_id", CLIENT_ID).containsEntry("client_secret", CLIENT_SECRET)
                .containsEntry("redirect_uri", "https://codeassist.google.com/authcode");
        assertThat(s256(grant.get("code_verifier"))).as("the verifier matches the challenge").isEqualTo(q.get("code_challenge"));

        JsonNode status = client.expect(client.get("/api/oauth/flows/" + flow.path("flowId").asText(), adminKey), 200);
        assertThat(status.path("status").asText()).isEqualTo("connected");
        return status.path("connectionId").asText();
    }

    private static String streamedText(String sse) throws Exception {
        StringBuilder text = new StringBuilder();
        for (String line : sse.split("\n")) {
            if (line.startsWith("data: {")) {
                JsonNode chunk = SluiceClient.JSON.readTree(line.substring(6));
                text.append(chunk.at("/choices/0/delta/content").asText(""));
            }
        }
        return text.toString();
    }

    @Test
    void aGoogleLoginBecomesACodeAssistConnectionThatAnswersChatsStreamedAndNot() throws Exception {
        String connectionId = login(3599);

        JsonNode connection = client.expect(client.get("/api/providers/" + connectionId, adminKey), 200);
        assertThat(connection.path("provider").asText()).isEqualTo("gemini");
        assertThat(connection.path("authType").asText()).isEqualTo("oauth");
        assertThat(connection.path("name").asText()).isEqualTo("dev@example.com");
        assertThat(connection.path("baseUrl").asText()).isEqualTo(codeAssist.baseUrl());
        assertThat(connection.at("/providerSpecificData/oauthAccount/email").asText()).isEqualTo("dev@example.com");
        assertThat(connection.toString()).doesNotContain("ya29.login-token").doesNotContain("1//refresh-token");

        String key = client.createKey(adminKey, "gemini-login");
        codeAssist.enqueue(MockResponse.json(200, "{\"currentTier\":{\"id\":\"free-tier\"},\"cloudaicompanionProject\":\"proj-e2e\"}"));
        codeAssist.enqueue(MockResponse.json(200, """
                {"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi from Code Assist"}]},"finishReason":"STOP",
                 "index":0}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":4,"totalTokenCount":6}},"traceId":"trace-e2e"}"""));

        JsonNode answer = client.expect(client.post("/v1/chat/completions", key, SluiceClient.chat("gemini/gemini-2.5-pro", false)), 200);

        assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("Hi from Code Assist");
        assertThat(answer.at("/usage/total_tokens").asInt()).isEqualTo(6);
        RecordedRequest load = codeAssist.takeRequest(TAKE);
        assertThat(load.path()).isEqualTo("/v1internal:loadCodeAssist");
        assertThat(load.header("authorization")).isEqualTo("Bearer ya29.login-token");
        RecordedRequest generate = codeAssist.takeRequest(TAKE);
        assertThat(generate.path()).isEqualTo("/v1internal:generateContent");
        assertThat(generate.header("authorization")).isEqualTo("Bearer ya29.login-token");
        JsonNode envelope = SluiceClient.JSON.readTree(generate.body());
        assertThat(envelope.path("model").asText()).isEqualTo("gemini-2.5-pro");
        assertThat(envelope.path("project").asText()).isEqualTo("proj-e2e");
        assertThat(envelope.at("/request/contents/0/parts/0/text").asText()).isEqualTo("hi");
        assertThat(client.expect(client.get("/api/providers/" + connectionId, adminKey), 200)
                .at("/providerSpecificData/projectId").asText()).as("the project is stored with the connection").isEqualTo("proj-e2e");

        codeAssist.enqueue(MockResponse.sse(List.of(
                "{\"response\":{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Streamed \"}]},\"index\":0}]}}",
                "{\"response\":{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"answer\"}]},"
                        + "\"finishReason\":\"STOP\",\"index\":0}]},\"traceId\":\"trace-s\"}"), Duration.ZERO));

        HttpResponse<String> streamed = client.post("/v1/chat/completions", key, SluiceClient.chat("gemini/gemini-2.5-pro", true));

        assertThat(streamed.statusCode()).as(() -> client.describe(streamed)).isEqualTo(200);
        assertThat(streamedText(streamed.body())).isEqualTo("Streamed answer");
        assertThat(streamed.body()).contains("data: [DONE]");
        RecordedRequest streamRequest = codeAssist.takeRequest(TAKE);
        assertThat(streamRequest.path()).as("no second loadCodeAssist").isEqualTo("/v1internal:streamGenerateContent?alt=sse");
        assertThat(SluiceClient.JSON.readTree(streamRequest.body()).path("project").asText()).isEqualTo("proj-e2e");
    }

    @Test
    void aTokenDueForRenewalIsRefreshedAtThePluginsTokenUrlBeforeTheRequest() throws Exception {
        // expires in 1 s: within the default 60 s skew, so the first request renews it
        String connectionId = login(1);
        auth.enqueue(MockResponse.json(200, "{\"access_token\":\"ya29.refreshed-token\",\"expires_in\":3599,\"token_type\":\"Bearer\","
                + "\"id_token\":\"" + idToken("dev@example.com") + "\"}"));
        codeAssist.enqueue(MockResponse.json(200, "{\"currentTier\":{\"id\":\"standard-tier\"},\"cloudaicompanionProject\":\"proj-r\"}"));
        codeAssist.enqueue(MockResponse.json(200, """
                {"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"fresh"}]},"finishReason":"STOP","index":0}]}}"""));
        String key = client.createKey(adminKey, "gemini-refresh");

        JsonNode answer = client.expect(client.post("/v1/chat/completions", key, SluiceClient.chat("gemini/gemini-2.5-flash", false)), 200);

        assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("fresh");
        RecordedRequest refresh = auth.takeRequest(TAKE);
        assertThat(refresh.path()).isEqualTo("/token");
        assertThat(form(refresh.body())).containsEntry("grant_type", "refresh_token").containsEntry("refresh_token", "1//refresh-token")
                .containsEntry("client_id", CLIENT_ID).containsEntry("client_secret", CLIENT_SECRET);
        assertThat(codeAssist.takeRequest(TAKE).header("authorization")).isEqualTo("Bearer ya29.refreshed-token");
        assertThat(codeAssist.takeRequest(TAKE).header("authorization")).isEqualTo("Bearer ya29.refreshed-token");
        JsonNode connection = client.expect(client.get("/api/providers/" + connectionId, adminKey), 200);
        assertThat(connection.toString()).doesNotContain("ya29.refreshed-token");
        assertThat(auth.requestCount()).isEqualTo(2);
    }

    @Test
    void anImportedConnectionOnTheApiKeyHostIsServedFromTheConfiguredCodeAssistEndpoint() throws Exception {
        // what bin/sluice import gemini sends: no base URL
        JsonNode created = client.expect(client.post("/api/providers", adminKey, Map.of("provider", "gemini", "authType", "oauth",
                "name", "gemini (imported)", "oauth", Map.of("accessToken", "ya29.imported", "refreshToken", "1//imported",
                        "expiresAt", 4_102_444_800_000L), "providerSpecificData", Map.of("projectId", "my-project"))), 201);
        String key = client.createKey(adminKey, "gemini-import");
        codeAssist.enqueue(MockResponse.json(200, """
                {"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"imported ok"}]},"finishReason":"STOP","index":0}]}}"""));

        JsonNode answer = client.expect(client.post("/v1/chat/completions", key, SluiceClient.chat("gemini/gemini-2.5-pro", false)), 200);

        assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("imported ok");
        RecordedRequest generate = codeAssist.takeRequest(TAKE);
        assertThat(generate.path()).isEqualTo("/v1internal:generateContent");
        assertThat(generate.header("authorization")).isEqualTo("Bearer ya29.imported");
        assertThat(SluiceClient.JSON.readTree(generate.body()).path("project").asText()).isEqualTo("my-project");
        assertThat(created.path("id").asText()).isNotBlank();
        assertThat(auth.requestCount()).isZero();
    }
}
