package dev.sluice.plugin.opencode;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /** EB-1: the free tiers of these providers are limited per egress IP, not per account. */
    static final Set<String> EGRESS_BUCKETED = Set.of(GO, CLI);

    /**
     * ER-1: status- and header-only rules (opencode is not a full-text provider, ER-2): a 429
     * announcing no remaining requests or tokens is a quota on the connection; any other 429 is a
     * rate limit on the connection ({@code status_429}). A 429 whose text the built-in tables
     * recognise as a subscription quota stays a quota (1 h).
     */
    @Override
    public List<ErrorRule> errorRules() {
        List<ErrorRule> rules = new ArrayList<>();
        for (String provider : List.of(ZEN, GO, CLI)) {
            rules.add(new ErrorRule("quota_exhausted_remaining_requests", provider, 429, Map.of("x-ratelimit-remaining-requests", "0"),
                    List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null));
            rules.add(new ErrorRule("quota_exhausted_remaining_tokens", provider, 429, Map.of("x-ratelimit-remaining-tokens", "0"),
                    List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null));
            rules.add(new ErrorRule("status_429", provider, 429, Map.of(), List.of(), FailureReason.RATE_LIMIT_EXCEEDED,
                    LockScope.CONNECTION, null));
        }
        return List.copyOf(rules);
    }

    /** EB-1: opencode-go and opencode-cli connections that leave through one IP share their limits. */
    @Override
    public List<EgressBucketing> egressBucketing() {
        return List.of(new EgressBucketing() {
            @Override
            public String name() {
                return "opencode-egress-ip";
            }

            @Override
            public Set<String> providers() {
                return EGRESS_BUCKETED;
            }
        });
    }

    private static ProviderDescriptor descriptor(String id, String displayName) {
        return ProviderDescriptor.builder(id).displayName(displayName).defaultClass(ProviderClass.APIKEY).defaultBaseUrl(DEFAULT_BASE_URL)
                .executor(HostContext.OPENAI_COMPATIBLE).models(MODELS).passthroughModels(true).build();
    }
}
