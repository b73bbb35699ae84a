package dev.sluice.runtime.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 36: the operator's {@code plugins.settings.<plugin>.oauth*} over a plugin's login description. */
class LoginSettingsTest {

    private static OAuthLogin login() {
        return OAuthLogin.builder("acme").flows(OAuthFlow.PKCE).authorizeUrl("https://auth.acme.example/authorize")
                .tokenUrl("https://auth.acme.example/token").clientId("cli").clientSecret("published-secret")
                .redirectUri("https://auth.acme.example/code").scopes(List.of("a")).build();
    }

    @Test
    void theClientSecretSettingReplacesThePublishedOneAndBlankSettingsAreIgnored() {
        OAuthLogin applied = LoginSettings.apply(login(), Map.of("oauthClientSecret", " test-secret ", "oauthClientId", " ",
                "oauthTokenUrl", "http://127.0.0.1:1/token"));

        assertThat(applied.clientSecret()).isEqualTo("test-secret");
        assertThat(applied.clientId()).isEqualTo("cli");
        assertThat(applied.tokenUrl()).isEqualTo("http://127.0.0.1:1/token");
        assertThat(LoginSettings.apply(login(), Map.of()).clientSecret()).isEqualTo("published-secret");
        assertThat(LoginSettings.CLIENT_SECRET).isEqualTo("oauthClientSecret");
    }
}
