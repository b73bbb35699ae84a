package dev.sluice.runtime.routing;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.util.List;
import java.util.Map;

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
                    ModelInfo.embedding("text-embedding-3-small"), ModelInfo.embedding("text-embedding-3-large")))
            // api.openai.com serves the Responses API: /v1/responses is passed through (built-in tools, reasoning items)
            .withExecutor(HostContext.OPENAI_RESPONSES)
            // api.openai.com answers GET /v1/models with what the key may use (issue 32): listed beside these
            .toBuilder().discoversModels(true).build();

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

    /**
     * Error rules of the built-in providers (SPEC ER-1: minimax ships a header-only rule): MiniMax
     * answers an exhausted model quota with a 429 whose {@code x-model-quota-remaining} lists
     * {@code name=count} pairs, one of them 0 — a quota, not a rate limit, of that model.
     */
    public static final List<ErrorRule> ERROR_RULES = List.of(new ErrorRule("minimax-model-quota-exhausted", "minimax", 429,
            Map.of("x-model-quota-remaining", "~(^|,)\\s*[^=,]+=\\s*0+\\s*(,|$)"), List.of(), FailureReason.QUOTA_EXHAUSTED,
            LockScope.MODEL, null));

    private BuiltinProviders() {
    }
}
