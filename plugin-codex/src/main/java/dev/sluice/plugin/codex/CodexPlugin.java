package dev.sluice.plugin.codex;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.DeviceProtocol;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import java.util.List;

/**
 * Contributes the {@code codex} provider, its login and its executor. The login values are read
 * from openai/codex {@code codex-rs/login/src/server.rs} (issuer, authorize URL and its
 * parameters, redirect URI, scopes, code exchange), {@code codex-rs/login/src/device_code_auth.rs}
 * (device-code login: its endpoints, bodies and polling) and {@code codex-rs/login/src/auth/manager.rs}
 * (client id, token URL); docs/providers/codex.md says which value comes from which file.
 */
public final class CodexPlugin implements ProviderPlugin {

    /** The provider id: clients address its models as {@code codex/<model>}. */
    public static final String PROVIDER_ID = "codex";
    /** Codex's base URL for ChatGPT logins ({@code model_provider_info.rs}, {@code to_api_provider}). */
    public static final String DEFAULT_BASE_URL = "https://chatgpt.com/backend-api/codex";
    /** {@code DEFAULT_ISSUER} of {@code server.rs}. */
    static final String ISSUER = "https://auth.openai.com";
    /** {@code build_authorize_url}: {@code {issuer}/oauth/authorize}. */
    static final String AUTHORIZE_URL = ISSUER + "/oauth/authorize";
    /** {@code exchange_code_for_tokens} and {@code REFRESH_TOKEN_URL}: {@code {issuer}/oauth/token}. */
    static final String TOKEN_URL = ISSUER + "/oauth/token";
    /** {@code request_user_code} of {@code device_code_auth.rs}: {@code {issuer}/api/accounts/deviceauth/usercode}. */
    static final String DEVICE_URL = ISSUER + "/api/accounts/deviceauth/usercode";
    /** {@code poll_for_token}: {@code {issuer}/api/accounts/deviceauth/token}. */
    static final String DEVICE_POLL_URL = ISSUER + "/api/accounts/deviceauth/token";
    /** {@code request_device_code}: the page where the user code is entered, {@code {issuer}/codex/device}. */
    static final String DEVICE_VERIFICATION_URL = ISSUER + "/codex/device";
    /** {@code complete_device_code_login}: the exchange's {@code redirect_uri}, {@code {issuer}/deviceauth/callback}. */
    static final String DEVICE_REDIRECT_URI = ISSUER + "/deviceauth/callback";
    /** {@code CLIENT_ID} of {@code auth/manager.rs}: Codex CLI's public client. */
    static final String CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann";
    /**
     * {@code http://localhost:{port}/auth/callback} with {@code DEFAULT_PORT} 1455: the redirect
     * registered for the client. Nothing listens there on the gateway's host; the operator pastes
     * the URL the browser was sent to.
     */
    static final String REDIRECT_URI = "http://localhost:1455/auth/callback";
    /** The {@code scope} of {@code build_authorize_url}. */
    static final List<String> SCOPES = List.of("openid", "profile", "email", "offline_access", "api.connectors.read",
            "api.connectors.invoke");
    /** {@code DEFAULT_ORIGINATOR} of {@code default_client.rs}: the authorize parameter and the upstream header. */
    static final String ORIGINATOR = "codex_cli_rs";

    /** The executor's name ({@link CodexExecutorFactory}). */
    static final String EXECUTOR = "codex-responses";

    /** Models a ChatGPT plan is known to serve through Codex; any other name is forwarded as given. */
    static final List<ModelInfo> MODELS = List.of(ModelInfo.chat("gpt-5-codex"), ModelInfo.chat("gpt-5"),
            ModelInfo.chat("gpt-5.1-codex"), ModelInfo.chat("gpt-5.1-codex-mini"));

    private static final List<ProviderDescriptor> PROVIDERS = List.of(ProviderDescriptor.builder(PROVIDER_ID)
            .displayName("Codex (ChatGPT account)").defaultClass(ProviderClass.OAUTH).defaultBaseUrl(DEFAULT_BASE_URL)
            .executor(EXECUTOR).models(MODELS).passthroughModels(true).build());

    static final OAuthLogin LOGIN = OAuthLogin.builder(PROVIDER_ID)
            // codex login (browser, the default) and codex login --device-auth
            .flows(OAuthFlow.PKCE, OAuthFlow.DEVICE)
            .authorizeUrl(AUTHORIZE_URL)
            .tokenUrl(TOKEN_URL)
            .clientId(CLIENT_ID)
            .redirectUri(REDIRECT_URI)
            .scopes(SCOPES)
            // build_authorize_url's extra parameters, in its order
            .authorizeParam("id_token_add_organizations", "true")
            .authorizeParam("codex_cli_simplified_flow", "true")
            .authorizeParam("originator", ORIGINATOR)
            .deviceProtocol(DeviceProtocol.OPENAI_DEVICE_AUTH)
            .deviceUrl(DEVICE_URL)
            .devicePollUrl(DEVICE_POLL_URL)
            .deviceVerificationUrl(DEVICE_VERIFICATION_URL)
            .deviceRedirectUri(DEVICE_REDIRECT_URI)
            .accountMapper(CodexAccounts::account)
            .build();

    private static final List<ExecutorFactory> EXECUTORS = List.of(new CodexExecutorFactory());

    /** Creates the plugin (the runtime instantiates it through ServiceLoader). */
    public CodexPlugin() {
    }

    @Override
    public String name() {
        return "codex";
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
    public List<ExecutorFactory> executors() {
        return EXECUTORS;
    }

    @Override
    public List<OAuthLogin> oauthLogins() {
        return List.of(LOGIN);
    }
}
