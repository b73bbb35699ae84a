package dev.sluice.plugin.agentrouter;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import java.util.List;

/** Contributes the {@code agentrouter} provider. */
public final class AgentRouterPlugin implements ProviderPlugin {

    /** The provider id. */
    public static final String PROVIDER_ID = "agentrouter";
    /** Default base URL, with the version path (OpenAI SDK convention, SPEC DM-1b). */
    public static final String DEFAULT_BASE_URL = "https://agentrouter.org/v1";

    /** Models agentrouter is known to serve; any other model name is forwarded as given. */
    static final List<ModelInfo> MODELS = List.of(
            ModelInfo.chat("claude-sonnet-4-5"),
            ModelInfo.chat("claude-opus-4-1"),
            ModelInfo.chat("claude-haiku-4-5"),
            ModelInfo.chat("gpt-5"),
            ModelInfo.chat("glm-4.6"),
            ModelInfo.chat("deepseek-v3.2"));

    /** Creates the plugin (the runtime instantiates it through ServiceLoader). */
    public AgentRouterPlugin() {
    }

    @Override
    public String name() {
        return "agentrouter";
    }

    @Override
    public int spiVersion() {
        return ProviderPlugin.SPI_VERSION;
    }

    @Override
    public List<ProviderDescriptor> providers() {
        return List.of(new ProviderDescriptor(PROVIDER_ID, "agentrouter", ProviderClass.APIKEY, DEFAULT_BASE_URL,
                HostContext.OPENAI_COMPATIBLE, MODELS, true, false, false));
    }
}
