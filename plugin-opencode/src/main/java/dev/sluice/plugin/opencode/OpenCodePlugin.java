package dev.sluice.plugin.opencode;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import java.util.List;

/** Contributes the opencode family of providers. */
public final class OpenCodePlugin implements ProviderPlugin {

    /** opencode Zen (paid gateway). */
    public static final String ZEN = "opencode-zen";
    /** opencode Go (free tier, limited per egress IP). */
    public static final String GO = "opencode-go";
    /** opencode CLI endpoint (free tier, limited per egress IP). */
    public static final String CLI = "opencode-cli";
    /** Default base URL of the family, with the version path (SPEC DM-1b). */
    public static final String DEFAULT_BASE_URL = "https://opencode.ai/zen/v1";

    static final List<ModelInfo> MODELS = List.of(
            ModelInfo.chat("grok-code"),
            ModelInfo.chat("qwen3-coder"),
            ModelInfo.chat("kimi-k2"),
            ModelInfo.chat("glm-4.6"),
            ModelInfo.chat("claude-sonnet-4-5"),
            ModelInfo.chat("gpt-5"));

    /** Creates the plugin (the runtime instantiates it through ServiceLoader). */
    public OpenCodePlugin() {
    }

    @Override
    public String name() {
        return "opencode";
    }

    @Override
    public int spiVersion() {
        return ProviderPlugin.SPI_VERSION;
    }

    @Override
    public List<ProviderDescriptor> providers() {
        return List.of(
                descriptor(ZEN, "opencode Zen"),
                descriptor(GO, "opencode Go"),
                descriptor(CLI, "opencode CLI"));
    }

    private static ProviderDescriptor descriptor(String id, String displayName) {
        return new ProviderDescriptor(id, displayName, ProviderClass.APIKEY, DEFAULT_BASE_URL,
                HostContext.OPENAI_COMPATIBLE, MODELS, true, false, false);
    }
}
