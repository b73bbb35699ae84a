package dev.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 36: {@code bin/sluice import} reads each official CLI's file format; a mock admin API records what it sends. */
class ImportCommandTest {

    @TempDir
    Path home;
    private MockUpstream server;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void start() {
        server = MockUpstream.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private int run(String... args) {
        Map<String, String> env = new HashMap<>();
        env.put("SLUICE_URL", server.baseUrl());
        env.put("SLUICE_ADMIN_KEY", "sk-admin-0123456789");
        env.put("HOME", home.toString());
        return Cli.run(CommandLine.parse(List.of(args)), home, env, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private JsonNode sent() throws Exception {
        RecordedRequest r = server.takeRequest(Duration.ofSeconds(5));
        assertThat(r.method()).isEqualTo("POST");
        assertThat(r.path()).isEqualTo("/api/providers");
        return new ObjectMapper().readTree(r.body());
    }

    @Test
    void claudeCodesCredentialsFileFromTheDefaultPathBecomesAnOAuthConnection() throws Exception {
        Files.createDirectories(home.resolve(".claude"));
        Files.writeString(home.resolve(".claude/.credentials.json"), "{\"claudeAiOauth\":{\"accessToken\":\"sk-ant-oat01-aaaa\","
                + "\"refreshToken\":\"sk-ant-ort01-bbbb\",\"expiresAt\":1767254400000,\"scopes\":[\"user:inference\"],"
                + "\"subscriptionType\":\"max\"}}");
        server.enqueue(MockResponse.json(201, "{\"id\":\"c-1\",\"provider\":\"claude\",\"name\":\"claude (imported)\",\"authType\":\"oauth\"}"));

        assertThat(run("import", "claude")).as(err::toString).isZero();

        JsonNode body = sent();
        assertThat(body.get("provider").asText()).isEqualTo("claude");
        assertThat(body.get("authType").asText()).isEqualTo("oauth");
        assertThat(body.at("/oauth/accessToken").asText()).isEqualTo("sk-ant-oat01-aaaa");
        assertThat(body.at("/oauth/refreshToken").asText()).isEqualTo("sk-ant-ort01-bbbb");
        assertThat(body.at("/oauth/expiresAt").asLong()).isEqualTo(1767254400000L);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Imported: connection c-1").doesNotContain("sk-ant");
    }

    @Test
    void qwenCodesCredentialsFileGivesItsResourceUrlAsTheBaseUrl() throws Exception {
        Path file = Files.writeString(home.resolve("creds.json"), "{\"access_token\":\"qa\",\"refresh_token\":\"qr\","
                + "\"token_type\":\"Bearer\",\"resource_url\":\"portal.qwen.ai\",\"expiry_date\":1767254400000}");
        server.enqueue(MockResponse.json(201, "{\"id\":\"c-2\",\"provider\":\"qwen\",\"name\":\"qwen (imported)\",\"authType\":\"oauth\"}"));

        assertThat(run("import", "qwen", "--file", file.toString())).as(err::toString).isZero();

        JsonNode body = sent();
        assertThat(body.get("provider").asText()).isEqualTo("qwen");
        assertThat(body.get("baseUrl").asText()).isEqualTo("https://portal.qwen.ai/v1");
        assertThat(body.at("/oauth/accessToken").asText()).isEqualTo("qa");
        assertThat(body.at("/oauth/refreshToken").asText()).isEqualTo("qr");
        assertThat(body.at("/oauth/expiresAt").asLong()).isEqualTo(1767254400000L);
    }

    @Test
    void geminiClisOauthCredsFromTheDefaultPathBecomeAnOAuthConnectionNamedByItsIdToken() throws Exception {
        java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
        String idToken = b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString("{\"sub\":\"1\",\"email\":\"dev@example.com\"}".getBytes(StandardCharsets.UTF_8)) + ".sig";
        Files.createDirectories(home.resolve(".gemini"));
        // the shape google-auth-library's Credentials take in Gemini CLI's ~/.gemini/oauth_creds.json
        Files.writeString(home.resolve(".gemini/oauth_creds.json"), "{\"access_token\":\"ya29.ga\",\"refresh_token\":\"1//gr\","
                + "\"scope\":\"https://www.googleapis.com/auth/cloud-platform openid\",\"token_type\":\"Bearer\","
                + "\"id_token\":\"" + idToken + "\",\"expiry_date\":1767254400000}");
        server.enqueue(MockResponse.json(201, "{\"id\":\"c-3\",\"provider\":\"gemini\",\"name\":\"gemini (imported)\",\"authType\":\"oauth\"}"));

        assertThat(run("import", "gemini")).as(err::toString).isZero();

        JsonNode body = sent();
        assertThat(body.get("provider").asText()).isEqualTo("gemini");
        assertThat(body.get("authType").asText()).isEqualTo("oauth");
        assertThat(body.has("baseUrl")).as("the plugin serves it from its Code Assist endpoint").isFalse();
        assertThat(body.at("/oauth/accessToken").asText()).isEqualTo("ya29.ga");
        assertThat(body.at("/oauth/refreshToken").asText()).isEqualTo("1//gr");
        assertThat(body.at("/oauth/expiresAt").asLong()).isEqualTo(1767254400000L);
        assertThat(body.at("/providerSpecificData/oauthAccount/identity").asText()).isEqualTo("dev@example.com");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Imported: connection c-3").doesNotContain("ya29");
    }

    @Test
    void aGeminiFileWithoutAnAccessTokenIsRefused() throws Exception {
        Path file = Files.writeString(home.resolve("g.json"), "{\"refresh_token\":\"1//gr\"}");

        assertThat(run("import", "gemini", "--file", file.toString())).isEqualTo(Cli.FAILED);

        assertThat(err.toString(StandardCharsets.UTF_8).strip()).contains(file.toString())
                .contains("not a Gemini CLI oauth_creds.json").doesNotContain("\n");
        assertThat(server.requestCount()).isZero();
    }

    @Test
    void aMissingOrMalformedFileIsAOneLineErrorNamingItAndNothingIsSent() throws Exception {
        Path bad = Files.writeString(home.resolve("bad.json"), "{not json");
        assertThat(run("import", "qwen", "--file", bad.toString())).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).startsWith("sluice: import: cannot read " + bad).doesNotContain("\n");
        err.reset();

        assertThat(run("import", "claude")).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).contains(home.resolve(".claude/.credentials.json").toString())
                .doesNotContain("\n");
        err.reset();

        Path wrong = Files.writeString(home.resolve("wrong.json"), "{\"other\":1}");
        assertThat(run("import", "claude", "--file", wrong.toString())).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no claudeAiOauth.accessToken");
        err.reset();

        assertThat(run("import", "acme")).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no importer for provider 'acme'");
        assertThat(server.requestCount()).isZero();
    }

    /** A JWT with the given payload (header and signature are never read). */
    private static String jwt(String payloadJson) {
        java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8)) + ".c2ln";
    }

    @Test
    void codexAuthJsonFromTheDefaultPathBecomesAnOAuthConnectionWithTheChatGptAccount() throws Exception {
        String idToken = jwt("{\"email\":\"dev@example.com\",\"https://api.openai.com/auth\":{\"chatgpt_plan_type\":\"pro\","
                + "\"chatgpt_account_id\":\"acct-from-claims\"}}");
        String accessToken = jwt("{\"exp\":1767254400,\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"acct-1\"}}");
        Files.createDirectories(home.resolve(".codex"));
        Files.writeString(home.resolve(".codex/auth.json"), "{\"OPENAI_API_KEY\":null,\"tokens\":{\"id_token\":\"" + idToken
                + "\",\"access_token\":\"" + accessToken + "\",\"refresh_token\":\"rt-codex-1\",\"account_id\":\"acct-1\"},"
                + "\"last_refresh\":\"2026-12-01T10:00:00Z\"}");
        server.enqueue(MockResponse.json(200, "{\"data\":[{\"id\":\"c-other\",\"provider\":\"codex\",\"providerSpecificData\":"
                + "{\"oauthAccount\":{\"identity\":\"acct-other\"}}}]}"));
        server.enqueue(MockResponse.json(201, "{\"id\":\"c-3\",\"provider\":\"codex\",\"name\":\"codex (imported)\",\"authType\":\"oauth\"}"));

        assertThat(run("import", "codex")).as(err::toString).isZero();

        assertThat(server.takeRequest(Duration.ofSeconds(5)).path()).isEqualTo("/api/providers");
        JsonNode body = sent();
        assertThat(body.get("provider").asText()).isEqualTo("codex");
        assertThat(body.get("authType").asText()).isEqualTo("oauth");
        assertThat(body.at("/oauth/accessToken").asText()).isEqualTo(accessToken);
        assertThat(body.at("/oauth/refreshToken").asText()).isEqualTo("rt-codex-1");
        assertThat(body.at("/oauth/expiresAt").asLong()).as("the access token's exp").isEqualTo(1767254400000L);
        assertThat(body.at("/providerSpecificData/oauthAccount/accountId").asText()).as("tokens.account_id wins").isEqualTo("acct-1");
        assertThat(body.at("/providerSpecificData/oauthAccount/identity").asText()).isEqualTo("acct-1");
        assertThat(body.at("/providerSpecificData/oauthAccount/email").asText()).isEqualTo("dev@example.com");
        assertThat(body.at("/providerSpecificData/oauthAccount/plan").asText()).isEqualTo("pro");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Imported: connection c-3").doesNotContain("rt-codex-1");
    }

    @Test
    void importingTheSameCodexAccountAgainRenewsItsConnectionKeepingItsOtherSettings() throws Exception {
        String idToken = jwt("{\"email\":\"dev@example.com\",\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"acct-1\"}}");
        Path file = Files.writeString(home.resolve("auth.json"), "{\"tokens\":{\"id_token\":\"" + idToken
                + "\",\"access_token\":\"opaque-access\",\"refresh_token\":\"rt-2\"}}");
        server.enqueue(MockResponse.json(200, "{\"data\":[{\"id\":\"c-1\",\"provider\":\"codex\",\"providerSpecificData\":"
                + "{\"lowPriorityMode\":true,\"oauthAccount\":{\"identity\":\"acct-1\",\"plan\":\"plus\"}}}]}"));
        server.enqueue(MockResponse.json(200, "{\"id\":\"c-1\",\"provider\":\"codex\",\"name\":\"mine\",\"authType\":\"oauth\"}"));

        assertThat(run("import", "codex", "--file", file.toString())).as(err::toString).isZero();

        server.takeRequest(Duration.ofSeconds(5));
        RecordedRequest patch = server.takeRequest(Duration.ofSeconds(5));
        assertThat(patch.method()).isEqualTo("PATCH");
        assertThat(patch.path()).isEqualTo("/api/providers/c-1");
        JsonNode body = new ObjectMapper().readTree(patch.body());
        assertThat(body.at("/oauth/accessToken").asText()).isEqualTo("opaque-access");
        assertThat(body.at("/oauth/refreshToken").asText()).isEqualTo("rt-2");
        assertThat(body.at("/providerSpecificData/lowPriorityMode").asBoolean()).isTrue();
        assertThat(body.at("/providerSpecificData/oauthAccount/accountId").asText()).as("from the id token").isEqualTo("acct-1");
        assertThat(body.has("provider")).isFalse();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Updated: connection c-1");
    }

    @Test
    void aCodexAuthJsonWithOnlyAnApiKeyOrNoTokensIsRefusedNamingTheFile() throws Exception {
        Path apiKeyOnly = Files.writeString(home.resolve("key.json"), "{\"OPENAI_API_KEY\":\"sk-test-0123\"}");
        assertThat(run("import", "codex", "--file", apiKeyOnly.toString())).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).contains(apiKeyOnly.toString()).contains("API key, not a ChatGPT login")
                .doesNotContain("sk-test-0123").doesNotContain("\n");
        err.reset();

        Path empty = Files.writeString(home.resolve("empty.json"), "{\"tokens\":{}}");
        assertThat(run("import", "codex", "--file", empty.toString())).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no tokens.access_token (not a Codex auth.json)");
        assertThat(server.requestCount()).isZero();
    }
}
