package dev.sluice.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OAuthLoginTest {

    private static OAuthLogin.Builder pkce() {
        return OAuthLogin.builder("acme").flows(OAuthFlow.PKCE).authorizeUrl("https://auth.example/authorize")
                .tokenUrl("https://auth.example/token").clientId("client-1").redirectUri("https://auth.example/code");
    }

    @Test
    void builderKeepsEveryFieldAndToBuilderCopiesThem() {
        OAuthLogin login = pkce().scopes(List.of("a", "b")).authorizeParam("code", "true").tokenEncoding(TokenEncoding.JSON)
                .stateInTokenRequest(true).clientSecret("s").upstreamBaseUrl("https://api.example").build();
        OAuthLogin copy = login.toBuilder().clientId("client-2").build();

        assertThat(copy.clientId()).isEqualTo("client-2");
        assertThat(copy.scopes()).containsExactly("a", "b");
        assertThat(copy.authorizeParams()).containsExactly(Map.entry("code", "true"));
        assertThat(copy.tokenEncoding()).isEqualTo(TokenEncoding.JSON);
        assertThat(copy.stateInTokenRequest()).isTrue();
        assertThat(copy.clientSecret()).isEqualTo("s");
        assertThat(copy.upstreamBaseUrl()).isEqualTo("https://api.example");
        assertThat(copy.flows()).containsExactly(OAuthFlow.PKCE);
    }

    @Test
    void pkceWithoutRedirectAndDeviceWithoutEndpointAreRefused() {
        assertThatThrownBy(() -> pkce().redirectUri(null).build()).hasMessageContaining("redirectUri");
        assertThatThrownBy(() -> pkce().flows(OAuthFlow.DEVICE).build()).hasMessageContaining("deviceUrl");
        assertThatThrownBy(() -> pkce().flows().build()).hasMessageContaining("no flow");
        assertThatThrownBy(() -> pkce().tokenUrl("ftp://x/token").build()).hasMessageContaining("tokenUrl");
    }

    @Test
    void anOpenAiDeviceLoginNeedsItsPollVerificationAndRedirectUrlsAndToBuilderKeepsThem() {
        OAuthLogin.Builder device = pkce().flows(OAuthFlow.DEVICE).deviceUrl("https://auth.example/api/accounts/deviceauth/usercode")
                .deviceProtocol(DeviceProtocol.OPENAI_DEVICE_AUTH);
        assertThat(pkce().build().deviceProtocol()).isEqualTo(DeviceProtocol.RFC_8628);
        assertThatThrownBy(device::build).hasMessageContaining("OPENAI_DEVICE_AUTH").hasMessageContaining("devicePollUrl");

        OAuthLogin login = device.devicePollUrl("https://auth.example/api/accounts/deviceauth/token")
                .deviceVerificationUrl("https://auth.example/codex/device").deviceRedirectUri("https://auth.example/deviceauth/callback")
                .build();
        OAuthLogin copy = login.toBuilder().build();

        assertThat(copy.deviceProtocol()).isEqualTo(DeviceProtocol.OPENAI_DEVICE_AUTH);
        assertThat(copy.devicePollUrl()).isEqualTo("https://auth.example/api/accounts/deviceauth/token");
        assertThat(copy.deviceVerificationUrl()).isEqualTo("https://auth.example/codex/device");
        assertThat(copy.deviceRedirectUri()).isEqualTo("https://auth.example/deviceauth/callback");
        assertThatThrownBy(() -> login.toBuilder().devicePollUrl("not a url").build()).hasMessageContaining("devicePollUrl");
    }

    @Test
    void standardMapperReadsRfc6749FieldsAndResourceUrl() {
        OAuthTokenAnswer answer = new OAuthTokenAnswer(Map.of("access_token", "at", "refresh_token", "rt", "expires_in", 3600,
                "resource_url", "portal.qwen.ai"), 1_000L);
        OAuthAccount account = OAuthAccountMapper.STANDARD.map(answer);

        assertThat(account.accessToken()).isEqualTo("at");
        assertThat(account.refreshToken()).isEqualTo("rt");
        assertThat(account.expiresAt()).isEqualTo(3_601_000L);
        assertThat(account.resourceUrl()).isEqualTo("portal.qwen.ai");
        assertThat(account.toString()).doesNotContain("at,").doesNotContain("rt");
        assertThat(answer.toString()).doesNotContain("portal");
    }

    @Test
    void answerWithoutAccessTokenIsRefusedByTheStandardMapper() {
        assertThatThrownBy(() -> OAuthAccountMapper.STANDARD.map(new OAuthTokenAnswer(Map.of("token_type", "bearer"), 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("access_token");
    }

    @Test
    void identityIsTheAccountIdElseTheEmail() {
        assertThat(OAuthAccount.builder("t").email("a@b").build().identity()).isEqualTo("a@b");
        assertThat(OAuthAccount.builder("t").email("a@b").accountId("42").build().identity()).isEqualTo("42");
        assertThat(OAuthAccount.builder("t").build().identity()).isNull();
    }
}
