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

    @Test
    void theOpenAiDeviceSettingsPointItsPollVerificationAndRedirectElsewhere() {
        OAuthLogin device = login().toBuilder().flows(OAuthFlow.DEVICE).deviceProtocol(dev.sluice.api.oauth.DeviceProtocol.OPENAI_DEVICE_AUTH)
                .deviceUrl("https://auth.acme.example/usercode").devicePollUrl("https://auth.acme.example/poll")
                .deviceVerificationUrl("https://auth.acme.example/device").deviceRedirectUri("https://auth.acme.example/cb").build();

        OAuthLogin applied = LoginSettings.apply(device, Map.of("oauthDeviceUrl", "http://127.0.0.1:1/api/accounts/deviceauth/usercode",
                "oauthDevicePollUrl", "http://127.0.0.1:1/api/accounts/deviceauth/token",
                "oauthDeviceVerificationUrl", "http://127.0.0.1:1/codex/device", "oauthDeviceRedirectUri", "http://127.0.0.1:1/deviceauth/callback"));

        assertThat(applied.deviceUrl()).isEqualTo("http://127.0.0.1:1/api/accounts/deviceauth/usercode");
        assertThat(applied.devicePollUrl()).isEqualTo("http://127.0.0.1:1/api/accounts/deviceauth/token");
        assertThat(applied.deviceVerificationUrl()).isEqualTo("http://127.0.0.1:1/codex/device");
        assertThat(applied.deviceRedirectUri()).isEqualTo("http://127.0.0.1:1/deviceauth/callback");
        assertThat(applied.deviceProtocol()).isEqualTo(dev.sluice.api.oauth.DeviceProtocol.OPENAI_DEVICE_AUTH);
        assertThat(List.of(LoginSettings.DEVICE_POLL_URL, LoginSettings.DEVICE_VERIFICATION_URL, LoginSettings.DEVICE_REDIRECT_URI))
                .containsExactly("oauthDevicePollUrl", "oauthDeviceVerificationUrl", "oauthDeviceRedirectUri");
    }
}
