package dev.sluice.plugin.gemini;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.api.oauth.TokenEncoding;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 36: the login description is Gemini CLI's, and its token answers become accounts. */
class GeminiLoginTest {

    static String idToken(String claimsJson) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claimsJson.getBytes(StandardCharsets.UTF_8)) + ".c2lnbmF0dXJl";
    }

    @Test
    void theDescriptionIsGeminiClisUserCodeLogin() {
        OAuthLogin login = new GeminiPlugin().oauthLogins().get(0);
        assertThat(login.provider()).isEqualTo("gemini");
        assertThat(login.flows()).containsExactly(OAuthFlow.PKCE);
        assertThat(login.authorizeUrl()).isEqualTo("https://accounts.google.com/o/oauth2/v2/auth");
        assertThat(login.tokenUrl()).isEqualTo("https://oauth2.googleapis.com/token");
        assertThat(login.clientId()).isEqualTo("681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com");
        assertThat(login.clientSecret()).isEqualTo("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");
        assertThat(login.redirectUri()).isEqualTo("https://codeassist.google.com/authcode");
        assertThat(login.scopes()).containsExactly("https://www.googleapis.com/auth/cloud-platform",
                "https://www.googleapis.com/auth/userinfo.email", "https://www.googleapis.com/auth/userinfo.profile");
        assertThat(login.authorizeParams()).containsEntry("access_type", "offline").containsEntry("prompt", "consent");
        assertThat(login.tokenEncoding()).isEqualTo(TokenEncoding.FORM);
        assertThat(login.stateInTokenRequest()).isFalse();
        assertThat(login.upstreamBaseUrl()).isEqualTo("https://cloudcode-pa.googleapis.com");
    }

    @Test
    void theAccountsEmailComesFromTheIdToken() {
        OAuthTokenAnswer answer = new OAuthTokenAnswer(Map.of("access_token", "ya29.a", "refresh_token", "1//r", "expires_in", 3599,
                "scope", "openid email", "token_type", "Bearer",
                "id_token", idToken("{\"iss\":\"https://accounts.google.com\",\"sub\":\"1234\",\"email\":\"dev@example.com\"}")), 1_000L);

        OAuthAccount account = GeminiLogin.account(answer);

        assertThat(account.accessToken()).isEqualTo("ya29.a");
        assertThat(account.refreshToken()).isEqualTo("1//r");
        assertThat(account.expiresAt()).isEqualTo(1_000L + 3_599_000L);
        assertThat(account.email()).isEqualTo("dev@example.com");
        assertThat(account.identity()).isEqualTo("dev@example.com");
        assertThat(account.metadata()).containsEntry("scope", "openid email");
    }

    @Test
    void aRefreshAnswerWithoutIdTokenOrWithAnUnreadableOneStillMaps() {
        assertThat(GeminiLogin.account(new OAuthTokenAnswer(Map.of("access_token", "ya29.b", "expires_in", 3599), 0L)).email()).isNull();
        assertThat(GeminiLogin.account(new OAuthTokenAnswer(Map.of("access_token", "ya29.c", "id_token", "not.a-jwt!"), 0L)).email())
                .isNull();
    }
}
