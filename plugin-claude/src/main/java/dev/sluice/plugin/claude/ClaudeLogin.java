package dev.sluice.plugin.claude;

import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.api.oauth.TokenEncoding;
import java.util.List;

/**
 * The Claude subscription login (issue 36), as Claude Code 2.0.30 does it ({@code cli.js} of the
 * npm package {@code @anthropic-ai/claude-code}; see docs/providers/claude.md): PKCE S256 against
 * {@code claude.ai/oauth/authorize} with {@code code=true}, redirect to Anthropic's page that
 * shows {@code code#state} for the operator to paste, and a JSON code exchange that also carries
 * the {@code state}. The host applies {@code plugins.settings.claude.oauth*} over these.
 */
final class ClaudeLogin {

    /** Claude Code's {@code CLAUDE_AI_AUTHORIZE_URL} (subscription accounts; the console one issues API keys). */
    static final String AUTHORIZE_URL = "https://claude.ai/oauth/authorize";
    /** Claude Code's {@code MANUAL_REDIRECT_URL}: a page that shows the code to paste. */
    static final String REDIRECT_URI = "https://console.anthropic.com/oauth/code/callback";
    /** Claude Code's {@code TOKEN_URL}: Anthropic's OAuth token endpoint (code exchange and refresh). */
    static final String TOKEN_URL = "https://console.anthropic.com/v1/oauth/token";
    /** Claude Code's public OAuth client id, which issues subscription tokens. */
    static final String CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
    /** Claude Code's {@code SCOPES}. */
    static final List<String> SCOPES = List.of("org:create_api_key", "user:profile", "user:inference");

    private ClaudeLogin() {
    }

    static final OAuthLogin LOGIN = OAuthLogin.builder(ClaudePlugin.PROVIDER_ID)
            .flows(OAuthFlow.PKCE)
            .authorizeUrl(AUTHORIZE_URL)
            .tokenUrl(TOKEN_URL)
            .clientId(CLIENT_ID)
            .redirectUri(REDIRECT_URI)
            .scopes(SCOPES)
            .authorizeParam("code", "true")
            .tokenEncoding(TokenEncoding.JSON)
            .stateInTokenRequest(true)
            .accountMapper(ClaudeLogin::account)
            .build();

    /** Claude Code's {@code storeAccountInfo}: {@code account.uuid}, {@code account.email_address}, {@code organization.uuid}. */
    static OAuthAccount account(OAuthTokenAnswer answer) {
        return OAuthAccount.standard(answer)
                .accountId(answer.nested("account", "uuid"))
                .email(answer.nested("account", "email_address"))
                .metadata("organizationId", answer.nested("organization", "uuid"))
                .metadata("scope", answer.string("scope"))
                .build();
    }
}
