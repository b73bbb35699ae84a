package dev.sluice.plugin.gemini;

import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.toolkit.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The Google login of Gemini CLI (issue 36), from {@code packages/core/src/code_assist/oauth2.ts}
 * of google-gemini/gemini-cli, its {@code authWithUserCode} flow: PKCE S256 against Google's
 * authorization endpoint with {@code access_type=offline}, redirect to
 * {@code codeassist.google.com/authcode}, the page that shows the code for the operator to paste,
 * and a form-encoded code exchange carrying the installed app's published client secret (as
 * google-auth-library's {@code OAuth2Client.getToken} sends it). The host applies
 * {@code plugins.settings.gemini.oauth*} over these; docs/providers/gemini.md lists the sources.
 */
final class GeminiLogin {

    /** google-auth-library's {@code oauth2AuthBaseUrl} (Gemini CLI uses the library's default). */
    static final String AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth";
    /** google-auth-library's {@code oauth2TokenUrl}. */
    static final String TOKEN_URL = "https://oauth2.googleapis.com/token";
    /** Gemini CLI's {@code OAUTH_CLIENT_ID}. */
    static final String CLIENT_ID = "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com";
    /**
     * Gemini CLI's {@code OAUTH_CLIENT_SECRET}: published in its source because it is an installed
     * application's, which Google documents as "obviously not treated as a secret".
     */
    static final String CLIENT_SECRET = "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";
    /** The redirect of Gemini CLI's user-code flow: a Google page that shows the code to paste. */
    static final String REDIRECT_URI = "https://codeassist.google.com/authcode";
    /** Gemini CLI's {@code OAUTH_SCOPE}. */
    static final List<String> SCOPES = List.of("https://www.googleapis.com/auth/cloud-platform",
            "https://www.googleapis.com/auth/userinfo.email", "https://www.googleapis.com/auth/userinfo.profile");

    static final OAuthLogin LOGIN = OAuthLogin.builder(GeminiPlugin.PROVIDER_ID)
            .flows(OAuthFlow.PKCE)
            .authorizeUrl(AUTHORIZE_URL)
            .tokenUrl(TOKEN_URL)
            .clientId(CLIENT_ID)
            .clientSecret(CLIENT_SECRET)
            .redirectUri(REDIRECT_URI)
            .scopes(SCOPES)
            .authorizeParam("access_type", "offline")
            // not in Gemini CLI: Google issues a refresh token only on the first consent to a client,
            // and an operator who already uses Gemini CLI has given it; consent again gets one
            .authorizeParam("prompt", "consent")
            .upstreamBaseUrl(CodeAssist.DEFAULT_BASE_URL)
            .accountMapper(GeminiLogin::account)
            .build();

    private GeminiLogin() {
    }

    /**
     * The tokens, and the account's e-mail from the {@code id_token} Google returns for the
     * {@code userinfo.email} scope (Gemini CLI asks {@code oauth2/v2/userinfo} instead; the hook must
     * not call out). A refresh answer without an {@code id_token} keeps the stored identity.
     */
    static OAuthAccount account(OAuthTokenAnswer answer) {
        Map<String, Object> claims = idTokenClaims(answer.string("id_token"));
        return OAuthAccount.standard(answer)
                .email(Json.string(claims, "email"))
                .metadata("scope", answer.string("scope"))
                .build();
    }

    /**
     * The claims of an ID token, unverified: it came straight from the token endpoint over TLS
     * (OpenID Connect Core §3.1.3.7 lets a client skip the signature check then).
     *
     * @param idToken the JWT, or null
     * @return its payload's members; empty when absent or unreadable
     */
    static Map<String, Object> idTokenClaims(String idToken) {
        if (idToken == null) {
            return Map.of();
        }
        String[] parts = idToken.split("\\.");
        if (parts.length < 2) {
            return Map.of();
        }
        try {
            return Json.parseObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return Map.of();
        }
    }
}
