package dev.sluice.plugin.qwen;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import java.util.List;
import java.util.Locale;

/**
 * Contributes the {@code qwen} provider and its login. Every value below is read from Qwen Code's
 * {@code packages/core/src/qwen/qwenOAuth2.ts} and {@code qwenContentGenerator.ts}
 * (QwenLM/qwen-code); docs/providers/qwen.md says which.
 */
public final class QwenPlugin implements ProviderPlugin {

    /** The provider id: clients address its models as {@code qwen/<model>}. */
    public static final String PROVIDER_ID = "qwen";
    /** Qwen Code's {@code DEFAULT_DASHSCOPE_BASE_URL}, used when a token answer names no resource URL. */
    public static final String DEFAULT_BASE_URL = "https://dashscope.aliyuncs.com/compatible-mode/v1";
    /** {@code QWEN_OAUTH_DEVICE_CODE_ENDPOINT}. */
    static final String DEVICE_URL = "https://chat.qwen.ai/api/v1/oauth2/device/code";
    /** {@code QWEN_OAUTH_TOKEN_ENDPOINT}. */
    static final String TOKEN_URL = "https://chat.qwen.ai/api/v1/oauth2/token";
    /** {@code QWEN_OAUTH_CLIENT_ID}: Qwen Code's public client. */
    static final String CLIENT_ID = "f0304373b74a44d2b584a3fb70ca9e56";
    /** {@code QWEN_OAUTH_SCOPE}. */
    static final List<String> SCOPES = List.of("openid", "profile", "email", "model.completion");

    /** Models a Qwen Code account is known to serve; any other name is forwarded as given. */
    static final List<ModelInfo> MODELS = List.of(ModelInfo.chat("coder-model"), ModelInfo.chat("qwen3-coder-plus"),
            ModelInfo.chat("qwen3-coder-flash"));

    private static final List<ProviderDescriptor> PROVIDERS = List.of(ProviderDescriptor.builder(PROVIDER_ID)
            .displayName("Qwen Code (qwen.ai account)").defaultClass(ProviderClass.OAUTH).defaultBaseUrl(DEFAULT_BASE_URL)
            .executor(HostContext.OPENAI_COMPATIBLE).models(MODELS).passthroughModels(true).build());

    static final OAuthLogin LOGIN = OAuthLogin.builder(PROVIDER_ID)
            .flows(OAuthFlow.DEVICE)
            .deviceUrl(DEVICE_URL)
            .tokenUrl(TOKEN_URL)
            .clientId(CLIENT_ID)
            .scopes(SCOPES)
            // Qwen Code sends a PKCE challenge with the device request and the verifier with each poll
            .devicePkce(true)
            .accountMapper(QwenPlugin::account)
            .build();

    /** Creates the plugin (the runtime instantiates it through ServiceLoader). */
    public QwenPlugin() {
    }

    @Override
    public String name() {
        return "qwen";
    }

    @Override
    public int spiVersion() {
        return ProviderPlugin.SPI_VERSION;
    }

    @Override
    public List<ProviderDescriptor> providers() {
        return PROVIDERS;
    }

    @Override
    public List<OAuthLogin> oauthLogins() {
        return List.of(LOGIN);
    }

    /** The tokens, and {@code resource_url} as the base URL the way Qwen Code's {@code getCurrentEndpoint} makes it. */
    static OAuthAccount account(OAuthTokenAnswer answer) {
        String resource = answer.string("resource_url");
        return OAuthAccount.standard(answer).resourceUrl(resource == null ? null : endpoint(resource)).build();
    }

    /** {@code https://} added when missing, {@code /v1} appended when missing. */
    static String endpoint(String resourceUrl) {
        String u = resourceUrl.strip();
        String lower = u.toLowerCase(Locale.ROOT);
        u = lower.startsWith("http://") || lower.startsWith("https://") ? u : "https://" + u;
        return u.endsWith("/v1") ? u : u + "/v1";
    }
}
