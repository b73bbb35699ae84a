package dev.sluice.plugin.codex;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.plugin.DeviceLogin;
import dev.sluice.testkit.plugin.LoginConnection;
import dev.sluice.testkit.plugin.LoginDriver;
import dev.sluice.testkit.plugin.LoginResult;
import dev.sluice.testkit.plugin.PkceLogin;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Issue 36: Codex CLI's ChatGPT logins, run by the host's flow code through the test kit against a loopback mock. */
class CodexLoginTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private MockUpstream auth;
    private LoginDriver driver;

    @BeforeEach
    void setUp() {
        auth = MockUpstream.start();
        driver = LoginDriver.builder(new CodexPlugin())
                .setting("oauthAuthorizeUrl", auth.baseUrl() + "/oauth/authorize")
                .setting("oauthTokenUrl", auth.baseUrl() + "/oauth/token")
                .setting("oauthDeviceUrl", auth.baseUrl() + "/api/accounts/deviceauth/usercode")
                .setting("oauthDevicePollUrl", auth.baseUrl() + "/api/accounts/deviceauth/token")
                .setting("oauthDeviceVerificationUrl", auth.baseUrl() + "/codex/device")
                .setting("oauthDeviceRedirectUri", auth.baseUrl() + "/deviceauth/callback")
                .build();
    }

    @AfterEach
    void tearDown() {
        driver.close();
        auth.close();
    }

    private static Map<String, String> form(String body) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String tokens(String access) {
        return "{\"access_token\":\"" + access + "\",\"refresh_token\":\"rt-c\",\"expires_in\":3600,\"id_token\":\""
                + Jwts.idToken("acct-7", "dev@example.com", "plus") + "\"}";
    }

    @Test
    void theBrowserLoginPastedAsTheLocalhostCallbackUrlConnectsTheChatGptAccount() throws Exception {
        PkceLogin login = driver.startPkce();
        assertThat(login.authorizeParams()).containsEntry("client_id", CodexPlugin.CLIENT_ID)
                .containsEntry("redirect_uri", "http://localhost:1455/auth/callback").containsEntry("originator", "codex_cli_rs")
                .containsEntry("codex_cli_simplified_flow", "true").containsEntry("id_token_add_organizations", "true")
                .containsEntry("code_challenge_method", "S256");
        assertThat(login.callbackUrl("ac-1")).startsWith("http://localhost:1455/auth/callback?code=ac-1&state=");
        auth.enqueue(MockResponse.json(200, tokens("at-c")));

        LoginResult result = login.pasteCallbackUrl(login.callbackUrl("ac-1"));

        assertThat(result.status()).as(String.valueOf(result.error())).isEqualTo(LoginResult.Status.CONNECTED);
        Map<String, String> exchange = form(auth.takeRequest(TIMEOUT).body());
        assertThat(exchange).containsEntry("grant_type", "authorization_code").containsEntry("code", "ac-1")
                .containsEntry("client_id", CodexPlugin.CLIENT_ID);
        assertThat(login.challengeMatches(exchange.get("code_verifier"))).isTrue();
        LoginConnection c = result.connection();
        assertThat(c.accountId()).isEqualTo("acct-7");
        assertThat(c.email()).isEqualTo("dev@example.com");
        assertThat(c.plan()).isEqualTo("plus");
        assertThat(c.name()).isEqualTo("dev@example.com");
        assertThat(c.baseUrl()).isEqualTo(CodexPlugin.DEFAULT_BASE_URL);
    }

    @Test
    void theDeviceLoginPollsTheDeviceAuthEndpointThenExchangesTheServersCode() throws Exception {
        auth.enqueue(MockResponse.json(200, "{\"device_auth_id\":\"da-1\",\"user_code\":\"CODX-0001\",\"interval\":\"5\"}"));
        DeviceLogin login = driver.startDevice();
        assertThat(login.userCode()).isEqualTo("CODX-0001");
        assertThat(login.verificationUri()).isEqualTo(auth.baseUrl() + "/codex/device");
        auth.enqueue(MockResponse.status(403, ""));
        auth.enqueue(MockResponse.json(200, "{\"authorization_code\":\"az-1\",\"code_challenge\":\"ch\",\"code_verifier\":\"sv-1\"}"));
        auth.enqueue(MockResponse.json(200, tokens("at-d")));

        LoginResult result = login.runToEnd();

        assertThat(result.status()).as(String.valueOf(result.error())).isEqualTo(LoginResult.Status.CONNECTED);
        assertThat(login.pollOffsets()).as("two polls, then the exchange right after the second")
                .containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(10));
        assertThat(auth.takeRequest(TIMEOUT).path()).isEqualTo("/api/accounts/deviceauth/usercode");
        assertThat(auth.takeRequest(TIMEOUT).path()).isEqualTo("/api/accounts/deviceauth/token");
        assertThat(auth.takeRequest(TIMEOUT).path()).isEqualTo("/api/accounts/deviceauth/token");
        RecordedRequest exchange = auth.takeRequest(TIMEOUT);
        assertThat(exchange.path()).isEqualTo("/oauth/token");
        assertThat(form(exchange.body())).containsEntry("code", "az-1").containsEntry("code_verifier", "sv-1")
                .containsEntry("redirect_uri", auth.baseUrl() + "/deviceauth/callback");
        assertThat(result.connection().accessToken()).isEqualTo("at-d");
        assertThat(result.connection().accountId()).isEqualTo("acct-7");
    }
}
