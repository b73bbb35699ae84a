package dev.sluice.plugin.claude;

import dev.sluice.api.ConnectionField;
import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ModelFacts;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import java.util.List;

/** Contributes the {@code claude} provider and the executor that speaks the Anthropic Messages API. */
public final class ClaudePlugin implements ProviderPlugin {

    /** The provider id: clients address its models as {@code claude/<model>}. */
    public static final String PROVIDER_ID = "claude";
    /** The executor name the descriptor refers to. */
    public static final String EXECUTOR_NAME = "claude";
    /** Default base URL: the host root (Anthropic SDK convention, SPEC DM-1b); the executor appends {@code /v1/messages}. */
    public static final String DEFAULT_BASE_URL = "https://api.anthropic.com";

    /** Models Anthropic is known to serve; any other model name is forwarded as given. */
    static final List<ModelInfo> MODELS = List.of(
            // issue 34: Anthropic's published windows, output limits and list prices (USD per million: input, output,
            // cache reads); operators override them per model (PUT /api/models)
            chat("claude-sonnet-4-5", 200_000, 64_000, 3.0, 15.0, 0.3, 3),
            chat("claude-opus-4-1", 200_000, 32_000, 15.0, 75.0, 1.5, 4),
            chat("claude-haiku-4-5", 200_000, 64_000, 1.0, 5.0, 0.1, 2));

    private static ModelInfo chat(String id, long window, long output, double input, double out, double cached, int tier) {
        return ModelInfo.chat(id).withFacts(ModelFacts.builder().contextWindow(window).maxOutputTokens(output).inputPerMillion(input)
                .outputPerMillion(out).cachedInputPerMillion(cached).tier(tier).build());
    }

    private static final List<ProviderDescriptor> PROVIDERS = List.of(ProviderDescriptor.builder(PROVIDER_ID)
            .displayName("Anthropic Claude").defaultClass(ProviderClass.APIKEY).defaultBaseUrl(DEFAULT_BASE_URL).executor(EXECUTOR_NAME)
            .models(MODELS).passthroughModels(true)
            // dated and future ids (Claude Code sends claude-opus-4-8, claude-haiku-4-5-20251001) route here by name
            .modelPatterns(List.of("claude-*"))
            // issue 33: the per-connection options ClaudeExecutor and LimitReset read, for the operator's connection form
            .connectionFields(List.of(
                    ConnectionField.builder("lowPriorityMode", ConnectionField.Type.BOOLEAN).label("Low-priority lane")
                            .description("On a usage-limit 429 that offers the slow lane, keep the subscription account working with "
                                    + "anthropic-usage-limit: slow until the announced reset instead of cooling it (CL-1). Default off.")
                            .build(),
                    ConnectionField.builder("autoLimitReset", ConnectionField.Type.BOOLEAN).label("Claim limit resets")
                            .description("On a usage-limit 429, claim an offered rate-limit reset for the organization before "
                                    + "anything else (CL-7; needs organizationUUID). Default off.").build(),
                    ConnectionField.builder("organizationUUID", ConnectionField.Type.STRING).label("Organization UUID")
                            .description("The account's organization, for claiming limit resets; a login sets it.").build()))
            .build());
    private static final List<ExecutorFactory> EXECUTORS = List.of(new ClaudeExecutorFactory());

    /** Creates the plugin (the runtime instantiates it through ServiceLoader). */
    public ClaudePlugin() {
    }

    @Override
    public String name() {
        return "claude";
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
    public List<dev.sluice.api.oauth.OAuthLogin> oauthLogins() {
        return List.of(ClaudeLogin.LOGIN);
    }
}
