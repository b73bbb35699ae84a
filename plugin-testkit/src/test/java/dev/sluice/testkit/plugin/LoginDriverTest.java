package dev.sluice.testkit.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Issue 36: the kit drives a plugin's login through the host's flow code against a loopback mock authorization server. */
class LoginDriverTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** A third-party plugin whose login is a description and nothing else; its endpoints are unreachable on purpose. */
    static final class AcmePlugin implements ProviderPlugin {
        private final String loginProvider;

        AcmePlugin() {
            this("acme");
        }

        AcmePlugin(String loginProvider) {
            this.loginProvider = loginProvider;
        }

        @Override
        public String name() {
            return "acme";
        }

        @Override
        public int spiVersion() {
            return SPI_VERSION;
        }

        @Override
        public List<ProviderDescriptor> providers() {
            return List.of(ProviderDescriptor.builder("acme").defaultClass(ProviderClass.OAUTH).defaultBaseUrl("https://api.acme.invalid/v1")
                    .models(List.of(ModelInfo.chat("acme-large"))).build());
        }

        @Override
        public List<OAuthLogin> oauthLogins() {
            return List.of(OAuthLogin.builder(loginProvider).flows(OAuthFlow.PKCE, OAuthFlow.DEVICE)
                    .authorizeUrl("https://auth.acme.invalid/authorize").tokenUrl("https://auth.acme.invalid/token")
                    .deviceUrl("https://auth.acme.invalid/device").clientId("acme-cli").redirectUri("https://console.acme.invalid/code")
                    .scopes(List.of("inference", "profile")).authorizeParam("prompt", "consent")
                    .accountMapper(a -> OAuthAccount.standard(a).accountId(a.nested("account", "id")).email(a.nested("account", "email"))
                            .plan(a.nested("account", "plan")).resourceUrl(a.string("resource_url")).metadata("org", a.nested("account", "org"))
                            .build())
                    .build());
        }
    }

    private MockUpstream auth;

    @BeforeEach
    void setUp() {
        auth = MockUpstream.start();
    }

    @AfterEach
    void tearDown() {
        auth.close();
    }

    private LoginDriver.Builder driver() {
        return LoginDriver.builder(new AcmePlugin()).setting("oauthAuthorizeUrl", auth.baseUrl() + "/authorize")
                .setting("oauthTokenUrl", auth.baseUrl() + "/token").setting("oauthDeviceUrl", auth.baseUrl() + "/device");
    }

    private static String tokens(String access, String refresh, String accountId, String extra) {
        return "{\"access_token\":\"" + access + "\",\"refresh_token\":\"" + refresh + "\",\"expires_in\":3600" + extra
                + ",\"account\":{\"id\":\"" + accountId + "\",\"email\":\"dev@acme.test\",\"plan\":\"pro\",\"org\":\"o-7\"}}";
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

    @Test
    void aPkceLoginPastedAsTheCallbackUrlExchangesTheCodeWithTheVerifierAndTheMapperFillsTheConnection() throws Exception {
        try (LoginDriver driver = driver().setting("oauthClientId", "acme-test-client").setting("upstreamBaseUrl", "http://127.0.0.1:9/v1")
                .build()) {
            PkceLogin login = driver.startPkce();

            assertThat(login.authorizeUrl()).startsWith(auth.baseUrl() + "/authorize?");
            assertThat(login.authorizeParams()).containsEntry("client_id", "acme-test-client").containsEntry("response_type", "code")
                    .containsEntry("redirect_uri", "https://console.acme.invalid/code").containsEntry("scope", "inference profile")
                    .containsEntry("code_challenge_method", "S256").containsEntry("prompt", "consent");
            assertThat(login.state()).hasSizeGreaterThanOrEqualTo(40);
            assertThat(login.codeChallenge()).hasSize(43);
            assertThat(auth.requestCount()).as("opening the authorize URL is the operator's part").isZero();
            auth.enqueue(MockResponse.json(200, tokens("at-1", "rt-1", "acct-1", "")));

            LoginResult result = login.pasteCallbackUrl(login.callbackUrl("code-1"));

            assertThat(result.status()).as(String.valueOf(result.error())).isEqualTo(LoginResult.Status.CONNECTED);
            RecordedRequest exchange = auth.takeRequest(TIMEOUT);
            assertThat(exchange.path()).isEqualTo("/token");
            Map<String, String> grant = form(exchange.body());
            assertThat(grant).containsEntry("grant_type", "authorization_code").containsEntry("code", "code-1")
                    .containsEntry("client_id", "acme-test-client").containsEntry("redirect_uri", "https://console.acme.invalid/code");
            assertThat(login.challengeMatches(grant.get("code_verifier"))).isTrue();
            assertThat(login.challengeMatches("another-verifier-another-verifier-another-ve")).isFalse();
            LoginConnection c = result.connection();
            assertThat(c.provider()).isEqualTo("acme");
            assertThat(c.authType()).isEqualTo(ProviderClass.OAUTH);
            assertThat(c.name()).isEqualTo("dev@acme.test");
            assertThat(c.accessToken()).isEqualTo("at-1");
            assertThat(c.refreshToken()).isEqualTo("rt-1");
            assertThat(c.expiresAt()).isEqualTo(driver.clock().millis() + 3_600_000L);
            assertThat(c.identity()).isEqualTo("acct-1");
            assertThat(c.accountId()).isEqualTo("acct-1");
            assertThat(c.email()).isEqualTo("dev@acme.test");
            assertThat(c.plan()).isEqualTo("pro");
            assertThat(c.metadata()).isEqualTo(Map.of("org", "o-7"));
            assertThat(c.baseUrl()).as("upstreamBaseUrl").isEqualTo("http://127.0.0.1:9/v1");
            assertThat(c.toString()).doesNotContain("at-1").doesNotContain("rt-1");
            assertThat(driver.exchanges()).extracting(LoginDriver.Exchange::status).containsExactly(200);
        }
    }

    @Test
    void aPastedCodeAndTheProvidersRedirectBothComplete_andASecondLoginToTheSameAccountUpdatesItsConnection() throws Exception {
        try (LoginDriver driver = driver().build()) {
            PkceLogin first = driver.startPkce(new LoginOptions("work", 3, null));
            auth.enqueue(MockResponse.json(200, tokens("at-1", "rt-1", "acct-1", "")));
            LoginResult one = first.enterCode("code-1#" + first.state());

            PkceLogin second = driver.startPkce();
            auth.enqueue(MockResponse.json(200, tokens("at-2", "rt-2", "acct-1", "")));
            LoginResult two = second.redirect("code-2", second.state());

            assertThat(one.connection().name()).isEqualTo("work");
            assertThat(one.connection().priority()).isEqualTo(3);
            assertThat(one.connection().baseUrl()).as("the provider's default").isEqualTo("https://api.acme.invalid/v1");
            assertThat(two.connection().id()).isEqualTo(one.connection().id());
            assertThat(driver.connections()).singleElement().satisfies(c -> {
                assertThat(c.accessToken()).isEqualTo("at-2");
                assertThat(c.name()).isEqualTo("work");
            });
            assertThat(form(auth.takeRequest(TIMEOUT).body())).containsEntry("code", "code-1");
            assertThat(form(auth.takeRequest(TIMEOUT).body())).containsEntry("code", "code-2");
        }
    }

    @Test
    void aWrongStateFailsTheLoginWithoutAnExchange_andAReplayedStateIsRefused() {
        try (LoginDriver driver = driver().build()) {
            PkceLogin wrong = driver.startPkce();
            LoginResult failed = wrong.enterCode("code-1", "not-the-state");

            assertThat(failed.status()).isEqualTo(LoginResult.Status.FAILED);
            assertThat(failed.error()).contains("state does not match");
            assertThatThrownBy(failed::connection).isInstanceOf(IllegalStateException.class).hasMessageContaining("failed");
            assertThat(auth.requestCount()).isZero();
            assertThat(driver.connections()).isEmpty();

            PkceLogin ok = driver.startPkce();
            auth.enqueue(MockResponse.json(200, tokens("at-1", "rt-1", "acct-1", "")));
            assertThat(ok.redirect("code-1", ok.state()).connected()).isTrue();
            assertThatThrownBy(() -> ok.redirect("code-1", ok.state())).isInstanceOfSatisfying(LoginRefusedException.class, e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.param()).isEqualTo("state");
                assertThat(e.getMessage()).contains("unknown, expired or already used");
            });
            assertThat(auth.requestCount()).isEqualTo(1);
        }
    }

    @Test
    void aDeclinedRedirectFailsTheLogin_andAStepOnAnEndedLoginIsAConflict() {
        try (LoginDriver driver = driver().build()) {
            PkceLogin login = driver.startPkce();
            assertThat(login.status().status()).isEqualTo(LoginResult.Status.PENDING);

            LoginResult declined = login.redirectWithError("access_denied");

            assertThat(declined.status()).isEqualTo(LoginResult.Status.FAILED);
            assertThat(declined.error()).isEqualTo("the authorization server refused the login: access_denied");
            assertThat(login.status().status()).isEqualTo(LoginResult.Status.FAILED);
            assertThatThrownBy(() -> login.enterCode("late-code")).isInstanceOfSatisfying(LoginRefusedException.class, e -> {
                assertThat(e.status()).isEqualTo(409);
                assertThat(e.code()).isEqualTo("flow_ended");
            });
            assertThat(auth.requestCount()).isZero();
        }
    }

    @Test
    void aDeviceLoginWaitsOutTwoPendingAnswersAndASlowDownOnTheClock_andTheResourceUrlIsTheBaseUrl() throws Exception {
        try (LoginDriver driver = driver().build()) {
            auth.enqueue(MockResponse.json(200, "{\"device_code\":\"dc-1\",\"user_code\":\"ABCD-EFGH\","
                    + "\"verification_uri\":\"https://acme.invalid/activate\",\"expires_in\":600,\"interval\":5}"));
            DeviceLogin login = driver.startDevice();

            assertThat(login.userCode()).isEqualTo("ABCD-EFGH");
            assertThat(login.verificationUri()).isEqualTo("https://acme.invalid/activate");
            RecordedRequest deviceRequest = auth.takeRequest(TIMEOUT);
            assertThat(deviceRequest.path()).isEqualTo("/device");
            assertThat(form(deviceRequest.body())).containsEntry("client_id", "acme-cli").containsEntry("scope", "inference profile");
            assertThat(login.poll().status()).isEqualTo(LoginResult.Status.PENDING);
            assertThat(auth.requestCount()).as("no poll before the interval").isEqualTo(1);
            auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
            auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
            auth.enqueue(MockResponse.json(400, "{\"error\":\"slow_down\"}"));
            auth.enqueue(MockResponse.json(200, tokens("at-d", "rt-d", "acct-9", ",\"resource_url\":\"portal.acme.test/v1\"")));

            LoginResult result = login.runToEnd();

            assertThat(result.status()).as(String.valueOf(result.error())).isEqualTo(LoginResult.Status.CONNECTED);
            assertThat(login.pollOffsets()).as("interval 5 s, then 10 s after slow_down")
                    .containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(25));
            auth.takeRequest(TIMEOUT);
            auth.takeRequest(TIMEOUT);
            auth.takeRequest(TIMEOUT);
            assertThat(form(auth.takeRequest(TIMEOUT).body())).containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:device_code")
                    .containsEntry("device_code", "dc-1").containsEntry("client_id", "acme-cli");
            assertThat(result.connection().accessToken()).isEqualTo("at-d");
            assertThat(result.connection().accountId()).isEqualTo("acct-9");
            assertThat(result.connection().baseUrl()).isEqualTo("https://portal.acme.test/v1");
        }
    }

    @Test
    void aDeviceLoginEndsExpiredOnExpiredTokenFailedOnAccessDenied_andExpiredAfterTheHostsTenMinutes() {
        String device = "{\"device_code\":\"dc\",\"user_code\":\"U-1\",\"verification_uri\":\"https://acme.invalid/d\",\"interval\":1}";
        try (LoginDriver driver = driver().build()) {
            auth.enqueue(MockResponse.json(200, device));
            DeviceLogin a = driver.startDevice();
            auth.enqueue(MockResponse.json(400, "{\"error\":\"expired_token\"}"));
            assertThat(a.runToEnd().status()).isEqualTo(LoginResult.Status.EXPIRED);

            auth.enqueue(MockResponse.json(200, device));
            DeviceLogin b = driver.startDevice();
            auth.enqueue(MockResponse.json(403, "{\"error\":\"access_denied\"}"));
            LoginResult denied = b.runToEnd();
            assertThat(denied.status()).isEqualTo(LoginResult.Status.FAILED);
            assertThat(denied.error()).contains("denied");

            auth.enqueue(MockResponse.json(200, device));
            DeviceLogin c = driver.startDevice();
            auth.setDefault(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
            LoginResult late = c.runToEnd();
            assertThat(late.status()).isEqualTo(LoginResult.Status.EXPIRED);
            assertThat(late.error()).contains("10 minutes");
            assertThat(driver.clock().instant()).isEqualTo(c.expiresAt());
            assertThat(c.pollOffsets()).hasSize(599).startsWith(Duration.ofSeconds(1));
            assertThat(driver.connections()).isEmpty();
        }
    }

    @Test
    void theDriverRefusesWhatTheServerWouldRefuse() {
        assertThatThrownBy(() -> LoginDriver.builder(new AcmePlugin("other")).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'other', which is not one of its providers");
        assertThatThrownBy(() -> LoginDriver.builder(new AcmePlugin()).setting("oauthTokenUrl", "not a url").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("plugins.settings.acme: ");
        assertThatThrownBy(() -> LoginDriver.builder(new AcmePlugin()).provider("nope").build())
                .hasMessageContaining("no OAuth login for provider 'nope'");
        try (LoginDriver driver = driver().build()) {
            auth.enqueue(MockResponse.json(500, "{\"error\":\"server_error\"}"));
            assertThatThrownBy(driver::startDevice).isInstanceOfSatisfying(LoginRefusedException.class,
                    e -> assertThat(e.status()).isEqualTo(502));
        }
    }
}
