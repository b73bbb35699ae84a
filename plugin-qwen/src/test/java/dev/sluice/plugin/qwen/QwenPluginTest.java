package dev.sluice.plugin.qwen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.api.oauth.TokenEncoding;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plugin's contract, and its login as Qwen Code's qwenOAuth2.ts does it (issue 36). */
class QwenPluginTest {

    private final QwenPlugin plugin = new QwenPlugin();

    @Test
    void itsModuleProvidesExactlyThePluginServiceAndNeedsOnlyTheSpi() {
        var descriptor = QwenPlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.name()).isEqualTo("sluice.plugin.qwen");
        assertThat(descriptor.provides()).hasSize(1);
        assertThat(descriptor.provides().iterator().next().service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api"));
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("qwen");
    }

    @Test
    void contributesAnOAuthProviderOnTheBuiltInOpenAiCompatibleExecutor() {
        ProviderDescriptor d = plugin.providers().get(0);
        assertThat(d.id()).isEqualTo("qwen");
        assertThat(d.defaultClass()).isEqualTo(ProviderClass.OAUTH);
        assertThat(d.executor()).isEqualTo("openai-compatible");
        assertThat(d.defaultBaseUrl()).isEqualTo("https://dashscope.aliyuncs.com/compatible-mode/v1");
        assertThat(plugin.executors()).isEmpty();
    }

    @Test
    void loginIsQwenCodesDeviceFlowWithPkce() {
        OAuthLogin login = plugin.oauthLogins().get(0);
        assertThat(login.provider()).isEqualTo("qwen");
        assertThat(login.flows()).containsExactly(OAuthFlow.DEVICE);
        assertThat(login.deviceUrl()).isEqualTo("https://chat.qwen.ai/api/v1/oauth2/device/code");
        assertThat(login.tokenUrl()).isEqualTo("https://chat.qwen.ai/api/v1/oauth2/token");
        assertThat(login.clientId()).isEqualTo("f0304373b74a44d2b584a3fb70ca9e56");
        assertThat(login.scopes()).containsExactly("openid", "profile", "email", "model.completion");
        assertThat(login.devicePkce()).isTrue();
        assertThat(login.tokenEncoding()).isEqualTo(TokenEncoding.FORM);
    }

    @Test
    void theResourceUrlBecomesTheBaseUrlWithSchemeAndV1() {
        OAuthTokenAnswer answer = new OAuthTokenAnswer(Map.of("access_token", "at", "refresh_token", "rt", "expires_in", 21600,
                "resource_url", "portal.qwen.ai"), 0L);
        assertThat(QwenPlugin.account(answer).resourceUrl()).isEqualTo("https://portal.qwen.ai/v1");
        assertThat(QwenPlugin.endpoint("https://x.example/v1")).isEqualTo("https://x.example/v1");
        assertThat(QwenPlugin.account(new OAuthTokenAnswer(Map.of("access_token", "at"), 0L)).resourceUrl()).isNull();
    }
}
