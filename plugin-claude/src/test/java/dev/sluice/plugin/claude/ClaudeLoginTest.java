package dev.sluice.plugin.claude;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.api.oauth.TokenEncoding;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 36: the login description matches Claude Code's (cli.js of @anthropic-ai/claude-code 2.0.30). */
class ClaudeLoginTest {

    @Test
    void describesClaudeCodesPasteTheCodePkceLogin() {
        OAuthLogin login = new ClaudePlugin().oauthLogins().get(0);

        assertThat(login.provider()).isEqualTo("claude");
        assertThat(login.flows()).containsExactly(OAuthFlow.PKCE);
        assertThat(login.authorizeUrl()).isEqualTo("https://claude.ai/oauth/authorize");
        assertThat(login.tokenUrl()).isEqualTo("https://console.anthropic.com/v1/oauth/token");
        assertThat(login.clientId()).isEqualTo("9d1c250a-e61b-44d9-88ed-5944d1962f5e");
        assertThat(login.redirectUri()).isEqualTo("https://console.anthropic.com/oauth/code/callback");
        assertThat(login.scopes()).containsExactly("org:create_api_key", "user:profile", "user:inference");
        assertThat(login.authorizeParams()).containsExactly(Map.entry("code", "true"));
        assertThat(login.tokenEncoding()).isEqualTo(TokenEncoding.JSON);
        assertThat(login.stateInTokenRequest()).isTrue();
    }

    @Test
    void theTokenAnswersAccountBecomesTheIdentity() {
        OAuthTokenAnswer answer = new OAuthTokenAnswer(Map.of("access_token", "sk-ant-oat01-x", "refresh_token", "sk-ant-ort01-y",
                "expires_in", 28_800, "scope", "user:inference user:profile",
                "account", Map.of("uuid", "acc-1", "email_address", "dev@example.com"), "organization", Map.of("uuid", "org-1")), 1_000L);

        OAuthAccount account = ClaudeLogin.account(answer);

        assertThat(account.identity()).isEqualTo("acc-1");
        assertThat(account.email()).isEqualTo("dev@example.com");
        assertThat(account.expiresAt()).isEqualTo(1_000L + 28_800_000L);
        assertThat(account.metadata()).containsEntry("organizationId", "org-1");
    }
}
