package dev.sluice.runtime.routing;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelFacts;
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
                    // issue 34: OpenAI's published windows, output limits and list prices (USD per million: input, output,
                    // cached input); operators override them with PUT /api/models or the config file's models: section
                    chat("gpt-4.1", 1_047_576, 32_768, 2.0, 8.0, 0.5, 3), chat("gpt-4.1-mini", 1_047_576, 32_768, 0.4, 1.6, 0.1, 2),
                    chat("gpt-4o", 128_000, 16_384, 2.5, 10.0, 1.25, 3), chat("gpt-4o-mini", 128_000, 16_384, 0.15, 0.6, 0.075, 1),
                    chat("o4-mini", 200_000, 100_000, 1.1, 4.4, 0.275, 2),
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

    /** A chat model with its catalog figures (issue 34). */
    private static ModelInfo chat(String id, long window, long output, double input, double out, double cached, int tier) {
        return ModelInfo.chat(id).withFacts(ModelFacts.builder().contextWindow(window).maxOutputTokens(output).inputPerMillion(input)
                .outputPerMillion(out).cachedInputPerMillion(cached).tier(tier).build());
    }

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
