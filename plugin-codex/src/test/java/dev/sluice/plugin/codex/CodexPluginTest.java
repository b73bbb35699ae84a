package dev.sluice.plugin.codex;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.DeviceProtocol;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.api.oauth.TokenEncoding;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plugin's contract, and its login as Codex CLI's codex-rs/login does it (issue 36). */
class CodexPluginTest {

    private final CodexPlugin plugin = new CodexPlugin();

    @Test
    void itsModuleProvidesExactlyThePluginServiceAndNeedsOnlyTheSpiAndToolkit() {
        var descriptor = CodexPlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.name()).isEqualTo("sluice.plugin.codex");
        assertThat(descriptor.provides()).hasSize(1);
        assertThat(descriptor.provides().iterator().next().service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api|sluice\\.toolkit"));
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("codex");
    }

    @Test
    void contributesAnOAuthProviderOnTheChatGptCodexBackendWithItsOwnExecutor() {
        ProviderDescriptor d = plugin.providers().get(0);
        assertThat(d.id()).isEqualTo("codex");
        assertThat(d.defaultClass()).isEqualTo(ProviderClass.OAUTH);
        assertThat(d.defaultBaseUrl()).isEqualTo("https://chatgpt.com/backend-api/codex");
        assertThat(d.executor()).isEqualTo("codex-responses");
        assertThat(d.passthroughModels()).isTrue();
        assertThat(plugin.executors()).extracting(e -> e.name()).containsExactly("codex-responses");
    }

    @Test
    void loginIsCodexClisPkceFlowAgainstAuthOpenAiCom() {
        OAuthLogin login = plugin.oauthLogins().get(0);
        assertThat(login.provider()).isEqualTo("codex");
        assertThat(login.flows()).as("browser login first, as codex login; --device-auth second").containsExactly(OAuthFlow.PKCE,
                OAuthFlow.DEVICE);
        assertThat(login.authorizeUrl()).isEqualTo("https://auth.openai.com/oauth/authorize");
        assertThat(login.tokenUrl()).isEqualTo("https://auth.openai.com/oauth/token");
        assertThat(login.clientId()).isEqualTo("app_EMoamEEZ73f0CkXaXp7hrann");
        assertThat(login.redirectUri()).isEqualTo("http://localhost:1455/auth/callback");
        assertThat(login.scopes()).containsExactly("openid", "profile", "email", "offline_access", "api.connectors.read",
                "api.connectors.invoke");
        assertThat(login.authorizeParams()).containsExactly(Map.entry("id_token_add_organizations", "true"),
                Map.entry("codex_cli_simplified_flow", "true"), Map.entry("originator", "codex_cli_rs"));
        assertThat(login.tokenEncoding()).isEqualTo(TokenEncoding.FORM);
        assertThat(login.clientSecret()).isNull();
        assertThat(login.stateInTokenRequest()).isFalse();
    }

    @Test
    void deviceLoginIsCodexClisDeviceAuthAgainstAuthOpenAiCom() {
        OAuthLogin login = plugin.oauthLogins().get(0);
        assertThat(login.deviceProtocol()).isEqualTo(DeviceProtocol.OPENAI_DEVICE_AUTH);
        assertThat(login.deviceUrl()).isEqualTo("https://auth.openai.com/api/accounts/deviceauth/usercode");
        assertThat(login.devicePollUrl()).isEqualTo("https://auth.openai.com/api/accounts/deviceauth/token");
        assertThat(login.deviceVerificationUrl()).isEqualTo("https://auth.openai.com/codex/device");
        assertThat(login.deviceRedirectUri()).isEqualTo("https://auth.openai.com/deviceauth/callback");
        assertThat(login.devicePkce()).as("the server mints the verifier").isFalse();
    }

    @Test
    void theIdTokensClaimsGiveTheAccountIdEmailAndPlan() {
        OAuthTokenAnswer answer = new OAuthTokenAnswer(Map.of("id_token", Jwts.idToken("acct-7", "dev@example.com", "pro"),
                "access_token", Jwts.accessToken("acct-7", 2_000_000_000L), "refresh_token", "rt-1", "expires_in", 3600), 1_000L);

        OAuthAccount account = CodexAccounts.account(answer);

        assertThat(account.accountId()).isEqualTo("acct-7");
        assertThat(account.identity()).isEqualTo("acct-7");
        assertThat(account.email()).isEqualTo("dev@example.com");
        assertThat(account.plan()).isEqualTo("pro");
        assertThat(account.refreshToken()).isEqualTo("rt-1");
        assertThat(account.expiresAt()).as("expires_in counts from the answer").isEqualTo(1_000L + 3_600_000L);
        assertThat(account.toString()).doesNotContain("rt-1");
    }

    @Test
    void aRefreshAnswerWithoutIdTokenOrExpiresInFallsBackToTheAccessTokensClaims() {
        OAuthTokenAnswer answer = new OAuthTokenAnswer(Map.of("access_token", Jwts.accessToken("acct-9", 1_900_000_000L)), 5L);

        OAuthAccount account = CodexAccounts.account(answer);

        assertThat(account.accountId()).isEqualTo("acct-9");
        assertThat(account.expiresAt()).as("the access token's exp, as Codex's parse_jwt_expiration").isEqualTo(1_900_000_000_000L);
        assertThat(account.email()).isNull();
    }

    @Test
    void anOpaqueOrMalformedTokenGivesNoClaimsAndNoFailure() {
        assertThat(JwtClaims.of("not-a-jwt")).isEqualTo(JwtClaims.NONE);
        assertThat(JwtClaims.of("a.%%%.c")).isEqualTo(JwtClaims.NONE);
        assertThat(JwtClaims.of(Jwts.of("[1,2]"))).isEqualTo(JwtClaims.NONE);
        assertThat(JwtClaims.of(Jwts.of("{\"email\":null,\"https://api.openai.com/profile\":{\"email\":\"p@example.com\"}}")).email())
                .isEqualTo("p@example.com");
        OAuthAccount account = CodexAccounts.account(new OAuthTokenAnswer(Map.of("access_token", "opaque"), 0L));
        assertThat(account.identity()).isNull();
        assertThat(account.expiresAt()).isNull();
    }
}
