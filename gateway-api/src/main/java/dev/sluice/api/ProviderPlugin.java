package dev.sluice.api;

import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.QuotaFamily;
import dev.sluice.api.rules.RestatementRule;
import java.util.List;
import java.util.Set;

/**
 * The one service a Sluice plugin provides ({@code provides dev.sluice.api.ProviderPlugin with ...}
 * in its {@code module-info.java}).
 *
 * <p>Every contribution method has a default returning an empty list, so a plugin overrides only
 * what it contributes. The runtime calls these methods once, at start-up, in a defined order
 * (plugins sorted by file name); a plugin that throws from any of them is skipped as a whole.
 *
 * <p>Implementations must be stateless with respect to requests: no static mutable state, no
 * threads of their own. Everything they need at run time comes from the {@link HostContext} that
 * the runtime passes to {@link ExecutorFactory#create(HostContext)}.
 */
public interface ProviderPlugin {

    /**
     * The SPI version this copy of {@code gateway-api} defines. A plugin returns this constant
     * from {@link #spiVersion()}; because it is a compile-time constant, the value is compiled
     * into the plugin, and the runtime can tell which SPI the plugin was built against.
     */
    int SPI_VERSION = 1;

    /**
     * Stable, unique plugin name (lower case, e.g. {@code agentrouter}); used in logs, in
     * {@code GET /api/plugins} and as the key of the plugin's settings view.
     *
     * @return the plugin name
     */
    String name();

    /**
     * The SPI version the plugin was compiled against. Implement as
     * {@code return ProviderPlugin.SPI_VERSION;}. The runtime refuses a plugin whose version it
     * does not support, naming the plugin and both versions.
     *
     * @return the SPI version compiled into the plugin
     */
    int spiVersion();

    /**
     * Providers this plugin defines. A provider id may be claimed by one plugin only.
     *
     * @return provider descriptors, never null
     */
    default List<ProviderDescriptor> providers() {
        return List.of();
    }

    /**
     * Executors (how to call a provider). A descriptor names its executor by
     * {@link ExecutorFactory#name()}; the built-in {@value HostContext#OPENAI_COMPATIBLE} executor
     * needs no factory.
     *
     * @return executor factories, never null
     */
    default List<ExecutorFactory> executors() {
        return List.of();
    }

    /**
     * Upstream status restatement rules (SPEC §16.1), applied before failure classification.
     *
     * @return restatement rules, never null
     */
    default List<RestatementRule> restatementRules() {
        return List.of();
    }

    /**
     * Provider error-classification rules (SPEC §16.2), consulted by the failure classifier.
     *
     * @return error rules, never null
     */
    default List<ErrorRule> errorRules() {
        return List.of();
    }

    /**
     * Egress-bucketing hooks (SPEC §16.3) for providers whose limits apply per egress IP.
     *
     * @return egress-bucketing hooks, never null
     */
    default List<EgressBucketing> egressBucketing() {
        return List.of();
    }

    /**
     * Quota families of this plugin's providers (SPEC ML-1): a model-scoped quota failure locks the
     * whole family on that connection. Empty by default: each model is locked alone.
     *
     * @return quota families
     */
    default List<QuotaFamily> quotaFamilies() {
        return List.of();
    }

    /**
     * Combo strategies this plugin contributes (SPEC CO-2), usable by name in any combo. A name
     * that a built-in strategy or another plugin already uses is refused.
     *
     * @return strategies
     */
    default List<ComboStrategy> comboStrategies() {
        return List.of();
    }

    /**
     * Providers of this plugin whose upstream limits apply per model rather than per account
     * (Gemini's per-model requests-per-minute and per-day quotas; SPEC RQ-4). For them a 429 whose
     * body asks for a short wait pauses only that model's share of the connection's queue, and a
     * structured Google {@code RetryInfo} delay too long to queue for locks that model on that
     * connection instead of pausing or cooling the connection. Empty by default: limits are per
     * connection.
     *
     * @return provider ids
     */
    default Set<String> modelScopedLimits() {
        return Set.of();
    }

    /**
     * OAuth login descriptions of this plugin's providers (issue 36): the host runs the flows
     * ({@code POST /api/oauth/{provider}/start}, {@code bin/sluice login}) and refreshes the
     * tokens; each description's provider must be one of {@link #providers()}, at most one per
     * provider. Empty by default: connections are added with a pasted key or token only.
     *
     * @return login descriptions
     */
    @Experimental("issue 36: subscription logins are new")
    default List<OAuthLogin> oauthLogins() {
        return List.of();
    }
}
