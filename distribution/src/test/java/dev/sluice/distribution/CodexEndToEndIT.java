package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * The shipped {@code codex} plugin through the built zip (issue 36): a ChatGPT login by Codex
 * CLI's PKCE flow, completed with the pasted callback URL, against a loopback mock of
 * {@code auth.openai.com} that checks the client id, the S256 challenge, the {@code state} and the
 * grant type; then the account's requests against a loopback mock of the ChatGPT Codex backend:
 * chat and messages translated to a Responses request carrying the account's
 * {@code ChatGPT-Account-ID}, and {@code /v1/responses} passed through unchanged but for the model.
 * Also Codex CLI's device-code login ({@code codex login --device-auth}), against the same mock
 * speaking OpenAI's device authorization as {@code codex-rs/login/src/device_code_auth.rs} does.
 * Every endpoint is pointed at the mocks with the plugin's settings.
 */
class CodexEndToEndIT {

    private static final String CLIENT_ID = "app_test_client";
    private static final String ACCOUNT = "acct-e2e-42";
    private static final String MODEL = "gpt-5-codex";
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
    private MockUpstream backend;
    private SluiceClient client;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() throws Exception {
        auth = MockUpstream.start();
        backend = MockUpstream.start();
        Path config = Files.writeString(work.resolve("sluice.yaml"), """
                plugins:
                  settings:
                    codex:
                      oauthAuthorizeUrl: %s/oauth/authorize
                      oauthTokenUrl: %s/oauth/token
                      oauthClientId: %s
                      upstreamBaseUrl: %s/backend-api/codex
                      oauthDeviceUrl: %s/api/accounts/deviceauth/usercode
                      oauthDevicePollUrl: %s/api/accounts/deviceauth/token
                      oauthDeviceVerificationUrl: %s/codex/device
                      oauthDeviceRedirectUri: %s/deviceauth/callback
                """.formatted(auth.baseUrl(), auth.baseUrl(), CLIENT_ID, backend.baseUrl(), auth.baseUrl(), auth.baseUrl(), auth.baseUrl(),
                auth.baseUrl()));
        Map<String, String> env = SluiceProcess.env(work.resolve("data"), adminKey);
        env.put("SLUICE_CONFIG", config.toString());
        client = new SluiceClient(servers.start(home, env));
    }

    @AfterEach
    void stop() {
        auth.close();
        backend.close();
    }

    private static String jwt(String payload) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + ".c2ln";
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** Logs in through the admin API with the pasted callback URL; returns the access token issued. */
    private String logIn() throws Exception {
        JsonNode flow = client.expect(client.post("/api/oauth/codex/start", adminKey, Map.of("name", "chatgpt")), 200);
        assertThat(flow.get("type").asText()).isEqualTo("pkce");
        URI authorize = URI.create(flow.get("authorizeUrl").asText());
        assertThat(authorize.toString()).startsWith(auth.baseUrl() + "/oauth/authorize?");
        Map<String, String> q = query(authorize.getRawQuery());
        assertThat(q).containsEntry("client_id", CLIENT_ID).containsEntry("response_type", "code")
                .containsEntry("redirect_uri", "http://localhost:1455/auth/callback")
                .containsEntry("scope", "openid profile email offline_access api.connectors.read api.connectors.invoke")
                .containsEntry("code_challenge_method", "S256").containsEntry("id_token_add_organizations", "true")
                .containsEntry("codex_cli_simplified_flow", "true").containsEntry("originator", "codex_cli_rs");
        String challenge = q.get("code_challenge");
        String state = q.get("state");
        assertThat(state).isNotBlank();

        String access = jwt("{\"exp\":4102444800,\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + ACCOUNT + "\"}}");
        String id = jwt("{\"email\":\"dev@example.com\",\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + ACCOUNT
                + "\",\"chatgpt_plan_type\":\"plus\"}}");
        auth.enqueue(MockResponse.json(200, "{\"id_token\":\"" + id + "\",\"access_token\":\"" + access
                + "\",\"refresh_token\":\"rt-codex-e2e\",\"expires_in\":864000}"));
        String pasted = "http://localhost:1455/auth/callback?code=code-e2e&scope=openid&state=" + URLEncoder.encode(state, StandardCharsets.UTF_8);

        JsonNode done = client.expect(client.post("/api/oauth/flows/" + flow.get("flowId").asText() + "/code", adminKey,
                Map.of("callbackUrl", pasted)), 200);

        assertThat(done.get("status").asText()).as(done::toString).isEqualTo("connected");
        RecordedRequest exchange = auth.takeRequest(TAKE);
        assertThat(exchange.path()).isEqualTo("/oauth/token");
        Map<String, String> form = query(exchange.body());
        assertThat(form).containsEntry("grant_type", "authorization_code").containsEntry("client_id", CLIENT_ID)
                .containsEntry("code", "code-e2e").containsEntry("redirect_uri", "http://localhost:1455/auth/callback");
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(form.get("code_verifier").getBytes(StandardCharsets.US_ASCII));
        assertThat(Base64.getUrlEncoder().withoutPadding().encodeToString(digest)).as("S256 of the verifier is the challenge")
                .isEqualTo(challenge);

        JsonNode connection = client.expect(client.get("/api/providers/" + done.get("connectionId").asText(), adminKey), 200);
        assertThat(connection.get("provider").asText()).isEqualTo("codex");
        assertThat(connection.get("authType").asText()).isEqualTo("oauth");
        assertThat(connection.get("baseUrl").asText()).isEqualTo(backend.baseUrl() + "/backend-api/codex");
        assertThat(connection.toString()).contains(ACCOUNT).contains("dev@example.com").doesNotContain(access)
                .doesNotContain("rt-codex-e2e");
        return access;
    }

    @Test
    void aDeviceCodeLoginAsCodexCliRunsItWaitsOutTwoNotYetAnswersAndExchangesTheServersCode() throws Exception {
        String access = jwt("{\"exp\":4102444800,\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + ACCOUNT + "\"}}");
        String id = jwt("{\"email\":\"device@example.com\",\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + ACCOUNT
                + "\",\"chatgpt_plan_type\":\"pro\"}}");
        // the shapes of device_code_auth.rs: the interval as a string, 403 and 404 while the user has not entered the code
        auth.enqueue(MockResponse.json(200, "{\"device_auth_id\":\"dev-auth-e2e\",\"user_code\":\"ABCD-1234\",\"interval\":\"1\"}"));
        auth.enqueue(MockResponse.status(403, ""));
        auth.enqueue(MockResponse.status(404, ""));
        auth.enqueue(MockResponse.json(200, "{\"authorization_code\":\"az-code-e2e\",\"code_challenge\":\"ch-e2e\","
                + "\"code_verifier\":\"server-minted-verifier\"}"));
        auth.enqueue(MockResponse.json(200, "{\"id_token\":\"" + id + "\",\"access_token\":\"" + access
                + "\",\"refresh_token\":\"rt-codex-device\",\"expires_in\":864000}"));
        long began = System.nanoTime();

        JsonNode flow = client.expect(client.post("/api/oauth/codex/start", adminKey, Map.of("name", "chatgpt-device", "flow", "device")), 200);

        assertThat(flow.get("type").asText()).isEqualTo("device");
        assertThat(flow.get("userCode").asText()).isEqualTo("ABCD-1234");
        assertThat(flow.get("verificationUri").asText()).isEqualTo(auth.baseUrl() + "/codex/device");
        assertThat(flow.has("authorizeUrl")).isFalse();
        assertThat(flow.toString()).doesNotContain("dev-auth-e2e");
        RecordedRequest usercode = auth.takeRequest(TAKE);
        assertThat(usercode.path()).isEqualTo("/api/accounts/deviceauth/usercode");
        assertThat(usercode.header("content-type")).startsWith("application/json");
        assertThat(SluiceClient.JSON.readTree(usercode.body())).isEqualTo(SluiceClient.JSON.readTree("{\"client_id\":\"" + CLIENT_ID + "\"}"));
        String path = "/api/oauth/flows/" + flow.get("flowId").asText();
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = client.expect(client.get(path, adminKey), 200);
            return !"pending".equals(last[0].get("status").asText());
        });

        assertThat(last[0].get("status").asText()).as(last[0]::toString).isEqualTo("connected");
        assertThat(Duration.ofNanos(System.nanoTime() - began)).as("three polls a second apart").isGreaterThanOrEqualTo(Duration.ofSeconds(3));
        for (int i = 0; i < 3; i++) {
            RecordedRequest poll = auth.takeRequest(TAKE);
            assertThat(poll.path()).isEqualTo("/api/accounts/deviceauth/token");
            assertThat(SluiceClient.JSON.readTree(poll.body()))
                    .isEqualTo(SluiceClient.JSON.readTree("{\"device_auth_id\":\"dev-auth-e2e\",\"user_code\":\"ABCD-1234\"}"));
        }
        RecordedRequest exchange = auth.takeRequest(TAKE);
        assertThat(exchange.path()).isEqualTo("/oauth/token");
        assertThat(query(exchange.body())).isEqualTo(Map.of("grant_type", "authorization_code", "code", "az-code-e2e",
                "redirect_uri", auth.baseUrl() + "/deviceauth/callback", "client_id", CLIENT_ID, "code_verifier", "server-minted-verifier"));
        assertThat(auth.requestCount()).isEqualTo(5);
        JsonNode connection = client.expect(client.get("/api/providers/" + last[0].get("connectionId").asText(), adminKey), 200);
        assertThat(connection.get("provider").asText()).isEqualTo("codex");
        assertThat(connection.get("authType").asText()).isEqualTo("oauth");
        assertThat(connection.get("name").asText()).isEqualTo("chatgpt-device");
        assertThat(connection.toString()).contains(ACCOUNT).contains("device@example.com").doesNotContain(access)
                .doesNotContain("rt-codex-device");

        String key = client.createKey(adminKey, "it");
        backend.enqueue(MockResponse.sse(answerStream(), Duration.ZERO));
        JsonNode chat = client.expect(client.post("/v1/chat/completions", key, SluiceClient.chat("codex/" + MODEL, false)), 200);
        assertThat(chat.at("/choices/0/message/content").asText()).isEqualTo("Hello from ChatGPT");
        RecordedRequest sent = backend.takeRequest(TAKE);
        assertThat(sent.header("authorization")).isEqualTo("Bearer " + access);
        assertThat(sent.header("chatgpt-account-id")).isEqualTo(ACCOUNT);
    }

    private static List<String> answerStream() {
        return List.of("{\"type\":\"response.created\",\"response\":{\"id\":\"resp_e2e\",\"model\":\"" + MODEL + "\",\"output\":[]}}",
                "{\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hello from \"}",
                "{\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"ChatGPT\"}",
                "{\"type\":\"response.completed\",\"response\":{\"id\":\"resp_e2e\",\"model\":\"" + MODEL + "\",\"status\":\"completed\","
                        + "\"output\":[],\"usage\":{\"input_tokens\":7,\"output_tokens\":3,\"total_tokens\":10}}}");
    }

    @Test
    void aLoggedInAccountsChatAndMessagesReachTheCodexBackendTranslatedWithItsAccountId() throws Exception {
        String access = logIn();
        String key = client.createKey(adminKey, "it");
        backend.enqueue(MockResponse.sse(answerStream(), Duration.ZERO));
        backend.enqueue(MockResponse.sse(answerStream(), Duration.ZERO));

        HttpResponse<String> chat = client.post("/v1/chat/completions", key, SluiceClient.chat("codex/" + MODEL, false));
        HttpResponse<String> messages = client.post("/v1/messages", key, Map.of("model", "codex/" + MODEL, "max_tokens", 32,
                "system", "Be brief.", "messages", List.of(Map.of("role", "user", "content", "hi"))));

        JsonNode chatAnswer = client.expect(chat, 200);
        assertThat(chatAnswer.at("/choices/0/message/content").asText()).isEqualTo("Hello from ChatGPT");
        assertThat(chatAnswer.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        assertThat(chatAnswer.at("/usage/prompt_tokens").asInt()).isEqualTo(7);
        assertThat(chat.headers().firstValue("X-Sluice-Provider")).hasValue("codex");
        JsonNode messagesAnswer = client.expect(messages, 200);
        assertThat(messagesAnswer.at("/content/0/text").asText()).isEqualTo("Hello from ChatGPT");

        RecordedRequest first = backend.takeRequest(TAKE);
        assertThat(first.path()).isEqualTo("/backend-api/codex/responses");
        assertThat(first.header("authorization")).isEqualTo("Bearer " + access);
        assertThat(first.header("chatgpt-account-id")).isEqualTo(ACCOUNT);
        assertThat(first.header("originator")).isEqualTo("codex_cli_rs");
        JsonNode firstBody = SluiceClient.JSON.readTree(first.body());
        assertThat(firstBody.get("model").asText()).isEqualTo(MODEL);
        assertThat(firstBody.get("store").asBoolean(true)).isFalse();
        assertThat(firstBody.get("stream").asBoolean()).isTrue();
        assertThat(firstBody.at("/input/0/content/0/text").asText()).isEqualTo("hi");
        RecordedRequest second = backend.takeRequest(TAKE);
        assertThat(second.header("chatgpt-account-id")).isEqualTo(ACCOUNT);
        assertThat(SluiceClient.JSON.readTree(second.body()).get("instructions").asText()).isEqualTo("Be brief.");
    }

    @Test
    void aResponsesRequestIsPassedThroughUnchangedButForTheModel() throws Exception {
        logIn();
        String key = client.createKey(adminKey, "it");
        String answer = "{\"id\":\"resp_pt\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"" + MODEL + "\",\"output\":"
                + "[{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"status\":\"completed\",\"content\":[{\"type\":"
                + "\"output_text\",\"text\":\"passed\",\"annotations\":[]}]}],\"usage\":{\"input_tokens\":4,\"output_tokens\":1,"
                + "\"total_tokens\":5}}";
        backend.enqueue(MockResponse.json(200, answer));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "codex/" + MODEL);
        body.put("instructions", "You are Codex.");
        body.put("input", List.of(Map.of("type", "message", "role", "user", "content", List.of(Map.of("type", "input_text", "text", "hi")))));
        body.put("tools", List.of(Map.of("type", "web_search")));
        body.put("include", List.of("reasoning.encrypted_content"));
        body.put("reasoning", Map.of("effort", "low", "summary", "auto"));
        body.put("store", false);
        body.put("stream", false);

        HttpResponse<String> r = client.post("/v1/responses", key, body);

        assertThat(client.expect(r, 200).at("/output/0/content/0/text").asText()).isEqualTo("passed");
        RecordedRequest sent = backend.takeRequest(TAKE);
        assertThat(sent.path()).isEqualTo("/backend-api/codex/responses");
        assertThat(sent.header("chatgpt-account-id")).isEqualTo(ACCOUNT);
        ObjectNode expected = SluiceClient.JSON.valueToTree(body);
        expected.put("model", MODEL);
        assertThat(SluiceClient.JSON.readTree(sent.body())).isEqualTo(expected);
    }
}
