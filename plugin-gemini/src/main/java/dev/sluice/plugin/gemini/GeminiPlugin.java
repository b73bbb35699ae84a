package dev.sluice.plugin.gemini;

import dev.sluice.api.ConnectionField;
import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.OAuthLogin;
import java.util.List;
import java.util.Set;

/**
 * Contributes the {@code gemini} provider, the executor that speaks Gemini's native API (API-key
 * connections) and Gemini CLI's Code Assist backend ({@code oauth} connections), and Gemini CLI's
 * Google login.
 */
public final class GeminiPlugin implements ProviderPlugin {

    /** The plugin name. */
    public static final String NAME = "gemini";
    /** The provider id. */
    public static final String PROVIDER_ID = "gemini";
    /** Default base URL: the host root, as Google's SDKs use it (SPEC DM-1b); the executor appends {@code /v1beta/...}. */
    public static final String DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";

    /** Models Gemini is known to serve; any other model name is forwarded as given. */
    static final List<ModelInfo> MODELS = List.of(
            ModelInfo.chat("gemini-2.5-pro"),
            ModelInfo.chat("gemini-2.5-flash"),
            ModelInfo.chat("gemini-2.5-flash-lite"));

    private static final List<ProviderDescriptor> PROVIDERS = List.of(ProviderDescriptor.builder(PROVIDER_ID)
            .displayName("Google Gemini").defaultClass(ProviderClass.APIKEY).defaultBaseUrl(DEFAULT_BASE_URL)
            .executor(GeminiExecutorFactory.NAME).models(MODELS).passthroughModels(true).modelPatterns(List.of("gemini-*"))
            // issue 33: what GeminiExecutor reads of a connection, for the operator's connection form
            .connectionFields(List.of(ConnectionField.builder(GeminiExecutor.INCLUDE_THOUGHTS, ConnectionField.Type.BOOLEAN)
                    .label("Thought summaries").description("Ask Gemini for thought summaries (generationConfig.thinkingConfig."
                            + "includeThoughts), passed on as reasoning_content. Default off: models without thinking reject it.")
                    .build()))
            .build());
    private static final List<ExecutorFactory> EXECUTORS = List.of(new GeminiExecutorFactory());

    /** Creates the plugin (the runtime instantiates it through ServiceLoader). */
    public GeminiPlugin() {
    }

    @Override
    public String name() {
        return NAME;
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

    /** Gemini CLI's Google login (issue 36): its connections are served by the Code Assist backend. */
    @Override
    public List<OAuthLogin> oauthLogins() {
        return List.of(GeminiLogin.LOGIN);
    }

    /** Gemini's limits are per model: RPM, TPM and RPD quotas are counted for each model (RQ-4). */
    @Override
    public Set<String> modelScopedLimits() {
        return Set.of(PROVIDER_ID);
    }
}
