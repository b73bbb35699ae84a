package dev.sluice.runtime.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.DeviceProtocol;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.TokenEncoding;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.TestClock;
import dev.sluice.toolkit.json.Json;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 36: the host's login flows against a loopback mock authorization server, on a test clock. */
class LoginFlowsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private MockUpstream auth;
    private Database db;
    private JdbcConnectionStore store;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));

    @BeforeEach
    void setUp() {
        auth = MockUpstream.start();
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
    }

    @AfterEach
    void tearDown() {
        auth.close();
        db.close();
    }

    private OAuthLogin.Builder pkceLogin() {
        return OAuthLogin.builder("acme").flows(OAuthFlow.PKCE, OAuthFlow.DEVICE)
                .authorizeUrl(auth.baseUrl() + "/authorize").tokenUrl(auth.baseUrl() + "/token").deviceUrl(auth.baseUrl() + "/device")
                .clientId("client-123").redirectUri("https://acme.example/code").scopes(List.of("user:inference", "user:profile"))
                .authorizeParam("code", "true")
                .accountMapper(a -> OAuthAccount.standard(a).email(a.nested("account", "email_address"))
                        .accountId(a.nested("account", "uuid")).build());
    }

    private LoginFlows flows(OAuthLogin login) {
        return new LoginFlows(Map.of(login.provider(), login), TokenEndpoint.direct(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT),
                new AccountConnections(store), clock);
    }

    private static String tokenAnswer(String access, String refresh, String uuid) {
        return "{\"access_token\":\"" + access + "\",\"refresh_token\":\"" + refresh + "\",\"expires_in\":3600,"
                + "\"account\":{\"uuid\":\"" + uuid + "\",\"email_address\":\"dev@example.com\"}}";
    }

    private static Map<String, String> params(String encoded) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Map<String, String> stringValues(Map<String, Object> json) {
        Map<String, String> out = new LinkedHashMap<>();
        json.forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    @Test
    void pkceLoginViaCallbackSendsS256ChallengeAndTheMatchingVerifierAndCreatesAnOAuthConnection() throws Exception {
        LoginFlows flows = flows(pkceLogin().build());
        FlowView started = flows.start("acme", StartOptions.DEFAULTS);
        Map<String, String> query = params(URI.create(started.authorizeUrl()).getRawQuery());
        assertThat(started.authorizeUrl()).startsWith(auth.baseUrl() + "/authorize?");
        assertThat(query).containsEntry("client_id", "client-123").containsEntry("response_type", "code")
                .containsEntry("redirect_uri", "https://acme.example/code").containsEntry("scope", "user:inference user:profile")
                .containsEntry("code_challenge_method", "S256").containsEntry("code", "true");
        assertThat(query.get("state")).hasSizeGreaterThanOrEqualTo(40);
        auth.enqueue(MockResponse.json(200, tokenAnswer("at-1", "rt-1", "u-1")));

        FlowView done = flows.callback(query.get("state"), "auth-code-1", null);

        assertThat(done.status()).isEqualTo("connected");
        RecordedRequest exchange = auth.takeRequest(TIMEOUT);
        assertThat(exchange.path()).isEqualTo("/token");
        assertThat(exchange.header("content-type")).startsWith("application/x-www-form-urlencoded");
        Map<String, String> grant = params(exchange.body());
        assertThat(grant).containsEntry("grant_type", "authorization_code").containsEntry("code", "auth-code-1")
                .containsEntry("client_id", "client-123").containsEntry("redirect_uri", "https://acme.example/code")
                .doesNotContainKey("state");
        assertThat(Pkce.challenge(grant.get("code_verifier"))).isEqualTo(query.get("code_challenge"));
        Connection c = store.find(done.connectionId()).orElseThrow();
        assertThat(c.authType()).isEqualTo(ProviderClass.OAUTH);
        assertThat(c.oauth().accessToken()).isEqualTo("at-1");
        assertThat(c.oauth().refreshToken()).isEqualTo("rt-1");
        assertThat(c.oauth().expiresAt()).isEqualTo(clock.millis() + 3_600_000L);
        assertThat(c.name()).isEqualTo("dev@example.com");
        assertThat(Json.object(Json.parseObject(c.providerSpecificDataJson()), "oauthAccount"))
                .containsEntry("identity", "u-1").containsEntry("email", "dev@example.com");
    }

    @Test
    void pastedCallbackUrlCompletesAJsonLoginAndASecondLoginToTheSameAccountUpdatesTheConnection() throws Exception {
        LoginFlows flows = flows(pkceLogin().tokenEncoding(TokenEncoding.JSON).stateInTokenRequest(true).build());
        FlowView first = flows.start("acme", StartOptions.DEFAULTS);
        String state = params(URI.create(first.authorizeUrl()).getRawQuery()).get("state");
        auth.enqueue(MockResponse.json(200, tokenAnswer("at-1", "rt-1", "u-1")));
        FlowView one = flows.submit(first.id(), null, null, "https://acme.example/code?code=c-1&state=" + state);
        assertThat(one.status()).isEqualTo("connected");
        Map<String, String> grant = stringValues(Json.parseObject(auth.takeRequest(TIMEOUT).body()));
        assertThat(grant).containsEntry("grant_type", "authorization_code").containsEntry("code", "c-1").containsEntry("state", state);

        FlowView second = flows.start("acme", StartOptions.DEFAULTS);
        String state2 = params(URI.create(second.authorizeUrl()).getRawQuery()).get("state");
        auth.enqueue(MockResponse.json(200, tokenAnswer("at-2", "rt-2", "u-1")));
        // Claude's page shows code#state
        FlowView two = flows.submit(second.id(), "c-2#" + state2, null, null);

        assertThat(two.status()).isEqualTo("connected");
        assertThat(two.connectionId()).isEqualTo(one.connectionId());
        assertThat(store.list()).hasSize(1);
        assertThat(store.find(one.connectionId()).orElseThrow().oauth().accessToken()).isEqualTo("at-2");
    }

    @Test
    void aReplayedStateIsRefusedAndAWrongStateFailsTheFlowWithoutCallingTheServer() throws Exception {
        LoginFlows flows = flows(pkceLogin().build());
        FlowView a = flows.start("acme", StartOptions.DEFAULTS);
        String state = params(URI.create(a.authorizeUrl()).getRawQuery()).get("state");
        auth.enqueue(MockResponse.json(200, tokenAnswer("at-1", "rt-1", "u-1")));
        assertThat(flows.callback(state, "c-1", null).status()).isEqualTo("connected");

        assertThatThrownBy(() -> flows.callback(state, "c-1", null)).isInstanceOf(LoginException.class)
                .hasMessageContaining("unknown, expired or already used")
                .satisfies(e -> assertThat(((LoginException) e).status()).isEqualTo(400));

        FlowView b = flows.start("acme", StartOptions.DEFAULTS);
        FlowView failed = flows.submit(b.id(), "c-2", "not-the-state", null);
        assertThat(failed.status()).isEqualTo("failed");
        assertThat(failed.error()).contains("state does not match");
        assertThat(auth.requestCount()).isEqualTo(1);
        assertThat(store.list()).hasSize(1);
    }

    @Test
    void deviceLoginWaitsOutTwoPendingAnswersAndASlowDownOnTheClock() throws Exception {
        LoginFlows flows = flows(pkceLogin().build());
        auth.enqueue(MockResponse.json(200, "{\"device_code\":\"dc-1\",\"user_code\":\"ABCD-EFGH\","
                + "\"verification_uri\":\"https://acme.example/device\",\"expires_in\":600,\"interval\":5}"));
        FlowView started = flows.start("acme", new StartOptions("work", 3, null, null, OAuthFlow.DEVICE));
        assertThat(started.userCode()).isEqualTo("ABCD-EFGH");
        Map<String, String> deviceRequest = params(auth.takeRequest(TIMEOUT).body());
        assertThat(deviceRequest).containsEntry("client_id", "client-123").containsEntry("scope", "user:inference user:profile");

        assertThat(flows.status(started.id()).status()).isEqualTo("pending");
        assertThat(auth.requestCount()).as("no poll before the interval").isEqualTo(1);
        auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
        auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
        auth.enqueue(MockResponse.json(400, "{\"error\":\"slow_down\"}"));
        auth.enqueue(MockResponse.json(200, tokenAnswer("at-d", "rt-d", "u-9")));
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(5));
            assertThat(flows.status(started.id()).status()).isEqualTo("pending");
            assertThat(flows.status(started.id()).status()).as("a second read within the interval does not poll").isEqualTo("pending");
        }
        assertThat(auth.requestCount()).isEqualTo(4);
        clock.advance(Duration.ofSeconds(5));
        assertThat(flows.status(started.id()).status()).as("slow_down lengthened the interval to 10 s").isEqualTo("pending");
        assertThat(auth.requestCount()).isEqualTo(4);
        clock.advance(Duration.ofSeconds(5));
        FlowView done = flows.status(started.id());

        assertThat(done.status()).isEqualTo("connected");
        auth.takeRequest(TIMEOUT);
        Map<String, String> poll = params(auth.takeRequest(TIMEOUT).body());
        assertThat(poll).containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:device_code")
                .containsEntry("device_code", "dc-1").containsEntry("client_id", "client-123");
        Connection c = store.find(done.connectionId()).orElseThrow();
        assertThat(c.name()).isEqualTo("work");
        assertThat(c.priority()).isEqualTo(3);
        assertThat(c.oauth().accessToken()).isEqualTo("at-d");
    }

    @Test
    void deviceLoginEndsExpiredOnExpiredTokenAndFailedOnAccessDenied() {
        LoginFlows flows = flows(pkceLogin().build());
        String device = "{\"device_code\":\"dc\",\"user_code\":\"U\",\"verification_uri\":\"https://x.example/d\",\"interval\":1}";
        auth.enqueue(MockResponse.json(200, device));
        FlowView a = flows.start("acme", new StartOptions(null, null, null, null, OAuthFlow.DEVICE));
        auth.enqueue(MockResponse.json(400, "{\"error\":\"expired_token\"}"));
        clock.advance(Duration.ofSeconds(1));
        assertThat(flows.status(a.id()).status()).isEqualTo("expired");

        auth.enqueue(MockResponse.json(200, device));
        FlowView b = flows.start("acme", new StartOptions(null, null, null, null, OAuthFlow.DEVICE));
        auth.enqueue(MockResponse.json(403, "{\"error\":\"access_denied\"}"));
        clock.advance(Duration.ofSeconds(1));
        FlowView denied = flows.status(b.id());
        assertThat(denied.status()).isEqualTo("failed");
        assertThat(denied.error()).contains("denied");
        assertThat(store.list()).isEmpty();
    }

    @Test
    void flowsExpireAfterTenMinutesAndAreForgottenLater() {
        LoginFlows flows = flows(pkceLogin().build());
        FlowView a = flows.start("acme", StartOptions.DEFAULTS);
        String state = params(URI.create(a.authorizeUrl()).getRawQuery()).get("state");
        assertThat(a.expiresAt()).isEqualTo(clock.millis() + LoginFlows.FLOW_TTL.toMillis());
        assertThat(LoginFlows.FLOW_TTL).isEqualTo(Duration.ofMinutes(10));

        clock.advance(LoginFlows.FLOW_TTL);
        assertThat(flows.status(a.id()).status()).isEqualTo("expired");
        assertThatThrownBy(() -> flows.callback(state, "c", null)).isInstanceOf(LoginException.class);
        clock.advance(LoginFlows.FORGET_AFTER);
        assertThatThrownBy(() -> flows.status(a.id())).isInstanceOf(LoginException.class)
                .satisfies(e -> assertThat(((LoginException) e).status()).isEqualTo(404));
        assertThat(auth.requestCount()).isZero();
    }

    @Test
    void unknownProviderIs404AndAFlowTheProviderDoesNotOfferIs400() {
        LoginFlows flows = flows(pkceLogin().flows(OAuthFlow.PKCE).build());
        assertThatThrownBy(() -> flows.start("other", StartOptions.DEFAULTS))
                .satisfies(e -> assertThat(((LoginException) e).status()).isEqualTo(404)).hasMessageContaining("acme");
        assertThatThrownBy(() -> flows.start("acme", new StartOptions(null, null, null, null, OAuthFlow.DEVICE)))
                .satisfies(e -> assertThat(((LoginException) e).param()).isEqualTo("flow"));
    }

    @Test
    void aRefusedCodeExchangeFailsTheFlowWithTheServersErrorAndNoSecret() throws Exception {
        LoginFlows flows = flows(pkceLogin().build());
        FlowView a = flows.start("acme", StartOptions.DEFAULTS);
        String state = params(URI.create(a.authorizeUrl()).getRawQuery()).get("state");
        auth.enqueue(MockResponse.json(400, "{\"error\":\"invalid_grant\",\"error_description\":\"code secret-code-42 is spent\"}"));

        FlowView failed = flows.callback(state, "secret-code-42", null);

        assertThat(failed.status()).isEqualTo("failed");
        assertThat(failed.error()).contains("HTTP 400").contains("invalid_grant").doesNotContain("secret-code-42");
        assertThat(store.list()).isEmpty();
    }

    private OAuthLogin openAiDevice() {
        return OAuthLogin.builder("acme").flows(OAuthFlow.DEVICE).deviceProtocol(DeviceProtocol.OPENAI_DEVICE_AUTH)
                .deviceUrl(auth.baseUrl() + "/api/accounts/deviceauth/usercode").devicePollUrl(auth.baseUrl() + "/api/accounts/deviceauth/token")
                .deviceVerificationUrl(auth.baseUrl() + "/codex/device").deviceRedirectUri(auth.baseUrl() + "/deviceauth/callback")
                .tokenUrl(auth.baseUrl() + "/oauth/token").clientId("app_test")
                .accountMapper(a -> OAuthAccount.standard(a).accountId(a.string("account")).build()).build();
    }

    @Test
    void anOpenAiDeviceLoginPollsItsOwnEndpointReadsForbiddenAndNotFoundAsPendingAndExchangesTheServersCode() throws Exception {
        LoginFlows flows = flows(openAiDevice());
        // Codex's server sends the interval as a string
        auth.enqueue(MockResponse.json(200, "{\"device_auth_id\":\"dev-auth-1\",\"user_code\":\"WXYZ-1234\",\"interval\":\"5\"}"));
        FlowView started = flows.start("acme", new StartOptions("chatgpt", null, null, null, OAuthFlow.DEVICE));

        assertThat(started.userCode()).isEqualTo("WXYZ-1234");
        assertThat(started.verificationUri()).isEqualTo(auth.baseUrl() + "/codex/device");
        RecordedRequest usercode = auth.takeRequest(TIMEOUT);
        assertThat(usercode.path()).isEqualTo("/api/accounts/deviceauth/usercode");
        assertThat(usercode.header("content-type")).startsWith("application/json");
        assertThat(Json.parseObject(usercode.body())).isEqualTo(Map.of("client_id", "app_test"));

        auth.enqueue(MockResponse.status(403, ""));
        auth.enqueue(MockResponse.status(404, ""));
        auth.enqueue(MockResponse.json(429, "{\"error\":\"rate_limited\"}"));
        auth.enqueue(MockResponse.json(200, "{\"authorization_code\":\"az-code-1\",\"code_challenge\":\"ch\",\"code_verifier\":\"server-verifier-1\"}"));
        auth.enqueue(MockResponse.json(200, "{\"access_token\":\"at-codex\",\"refresh_token\":\"rt-codex\",\"expires_in\":3600,\"account\":\"acct-1\"}"));
        assertThat(flows.status(started.id()).status()).as("no poll before the interval").isEqualTo("pending");
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofSeconds(5));
            assertThat(flows.status(started.id()).status()).isEqualTo("pending");
        }
        assertThat(auth.requestCount()).isEqualTo(4);
        clock.advance(Duration.ofSeconds(5));
        assertThat(flows.status(started.id()).status()).as("the 429 lengthened the interval to 10 s").isEqualTo("pending");
        assertThat(auth.requestCount()).isEqualTo(4);
        clock.advance(Duration.ofSeconds(5));
        FlowView done = flows.status(started.id());

        assertThat(done.status()).as(String.valueOf(done.error())).isEqualTo("connected");
        for (int i = 0; i < 4; i++) {
            RecordedRequest poll = auth.takeRequest(TIMEOUT);
            assertThat(poll.path()).isEqualTo("/api/accounts/deviceauth/token");
            assertThat(Json.parseObject(poll.body())).isEqualTo(Map.of("device_auth_id", "dev-auth-1", "user_code", "WXYZ-1234"));
        }
        RecordedRequest exchange = auth.takeRequest(TIMEOUT);
        assertThat(exchange.path()).isEqualTo("/oauth/token");
        assertThat(params(exchange.body())).isEqualTo(Map.of("grant_type", "authorization_code", "code", "az-code-1",
                "redirect_uri", auth.baseUrl() + "/deviceauth/callback", "client_id", "app_test", "code_verifier", "server-verifier-1"));
        Connection c = store.find(done.connectionId()).orElseThrow();
        assertThat(c.name()).isEqualTo("chatgpt");
        assertThat(c.oauth().accessToken()).isEqualTo("at-codex");
        assertThat(c.oauth().refreshToken()).isEqualTo("rt-codex");
    }

    @Test
    void anOpenAiDeviceLoginRetriesA5xxFailsOnOther4xxAndSaysWhenTheServerHasNoDeviceLogin() {
        LoginFlows flows = flows(openAiDevice());
        auth.enqueue(MockResponse.status(404, ""));
        assertThatThrownBy(() -> flows.start("acme", new StartOptions(null, null, null, null, OAuthFlow.DEVICE)))
                .isInstanceOf(LoginException.class).hasMessageContaining("device code login is not enabled")
                .satisfies(e -> assertThat(((LoginException) e).status()).isEqualTo(502));
        auth.enqueue(MockResponse.json(200, "{\"device_auth_id\":\"d\"}"));
        assertThatThrownBy(() -> flows.start("acme", new StartOptions(null, null, null, null, OAuthFlow.DEVICE)))
                .hasMessageContaining("device_auth_id or user_code");

        auth.enqueue(MockResponse.json(200, "{\"device_auth_id\":\"d-2\",\"usercode\":\"U-2\"}"));
        FlowView started = flows.start("acme", new StartOptions(null, null, null, null, OAuthFlow.DEVICE));
        assertThat(started.userCode()).as("Codex also reads 'usercode'").isEqualTo("U-2");
        auth.enqueue(MockResponse.status(502, "bad gateway"));
        clock.advance(Duration.ofMillis(DeviceGrant.DEFAULT_INTERVAL_MS));
        assertThat(flows.status(started.id()).status()).as("a 5xx is polled again").isEqualTo("pending");
        auth.enqueue(MockResponse.json(401, "{\"error\":\"authorization_declined\",\"error_description\":\"Denied\"}"));
        clock.advance(Duration.ofMillis(DeviceGrant.DEFAULT_INTERVAL_MS));
        FlowView failed = flows.status(started.id());

        assertThat(failed.status()).isEqualTo("failed");
        assertThat(failed.error()).contains("HTTP 401").contains("authorization_declined");
        assertThat(store.list()).isEmpty();
    }
}
