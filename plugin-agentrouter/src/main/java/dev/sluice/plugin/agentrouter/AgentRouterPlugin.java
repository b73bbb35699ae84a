package dev.sluice.plugin.agentrouter;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.rules.RestatementRule;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
        // ER-2, ER-3, ER-6: agentrouter's rules read the full error text and their scope is acted on
        return List.of(ProviderDescriptor.builder(PROVIDER_ID).displayName("agentrouter").defaultClass(ProviderClass.APIKEY)
                .defaultBaseUrl(DEFAULT_BASE_URL).executor(HostContext.OPENAI_COMPATIBLE).models(MODELS).passthroughModels(true)
                .errorRuleOptIns(true, true).build());
    }

    /** The quota-exhaustion markers agentrouter words its temporary quota errors with. */
    static final List<String> QUOTA_MARKERS = List.of("用户额度不足", "额度不足");
    /** "No access to this model": permanent for that model, never restated (RS-4). */
    static final String MODEL_ACCESS_DENIED = "无权访问模型";
    /** RS-3: the window the client is told after a restated quota error. */
    static final long QUOTA_RETRY_AFTER_MS = 60_000;
    /** ER-4: the declared lock of a model the account may not use (clamped by the model-lockout cap). */
    static final long MODEL_ACCESS_DENIED_COOLDOWN_MS = 21_600_000;

    /**
     * RS-1: agentrouter answers a temporary quota exhaustion with 403 (sometimes 400) and a Chinese
     * body; clients treat 403 as permanent. Restated to 429 with a 60 s client window, unless the
     * body says the model itself is off limits.
     */
    @Override
    public List<RestatementRule> restatementRules() {
        return List.of(new RestatementRule("agentrouter-quota-misstatus", PROVIDER_ID, Set.of(400, 403), 429, QUOTA_MARKERS,
                List.of(MODEL_ACCESS_DENIED), QUOTA_RETRY_AFTER_MS));
    }

    /**
     * ER-1: a model the account may not use locks that model (6 h declared, stored as
     * {@code forbidden}); a quota exhaustion cools the connection with the usual escalating
     * backoff (no declared cooldown).
     */
    @Override
    public List<ErrorRule> errorRules() {
        return List.of(
                new ErrorRule("agentrouter-model-access-denied", PROVIDER_ID, null, Map.of(), List.of(MODEL_ACCESS_DENIED),
                        FailureReason.AUTH_ERROR, LockScope.MODEL, MODEL_ACCESS_DENIED_COOLDOWN_MS),
                new ErrorRule("agentrouter-user-quota-exhausted", PROVIDER_ID, null, Map.of(), QUOTA_MARKERS,
                        FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null));
    }
}
