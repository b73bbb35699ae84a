package dev.sluice.runtime.routing;

import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import java.util.List;

/**
 * Providers the runtime serves without any plugin, through the built-in OpenAI-compatible
 * executor (SPEC SH-2). Base URLs follow each provider's official SDK (DM-1b).
 */
public final class BuiltinProviders {

    /** OpenAI. */
    public static final ProviderDescriptor OPENAI = ProviderDescriptor.openAiCompatible("openai", "OpenAI",
            ProviderClass.APIKEY, "https://api.openai.com/v1", List.of(
                    ModelInfo.chat("gpt-4.1"), ModelInfo.chat("gpt-4.1-mini"), ModelInfo.chat("gpt-4o"),
                    ModelInfo.chat("gpt-4o-mini"), ModelInfo.chat("o4-mini"),
                    ModelInfo.embedding("text-embedding-3-small"), ModelInfo.embedding("text-embedding-3-large")));

    /** Zhipu GLM (OpenAI-compatible endpoint). */
    public static final ProviderDescriptor GLM = ProviderDescriptor.openAiCompatible("glm", "GLM (Zhipu)",
            ProviderClass.APIKEY, "https://open.bigmodel.cn/api/paas/v4", List.of(
                    ModelInfo.chat("glm-4.6"), ModelInfo.chat("glm-4.5"), ModelInfo.chat("glm-4.5-air"),
                    ModelInfo.embedding("embedding-3")));

    /** MiniMax (OpenAI-compatible endpoint). */
    public static final ProviderDescriptor MINIMAX = ProviderDescriptor.openAiCompatible("minimax", "MiniMax",
            ProviderClass.APIKEY, "https://api.minimax.io/v1", List.of(ModelInfo.chat("MiniMax-M2")));

    /** All built-in providers, in listing order. */
    public static final List<ProviderDescriptor> ALL = List.of(OPENAI, GLM, MINIMAX);

    private BuiltinProviders() {
    }
}
