package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.rules.QuotaFamily;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import java.util.List;

/**
 * A plugin that passed every check, with the contributions it returned at load time. The lists are
 * the ones read once at start-up: the runtime never asks the plugin again, so a plugin cannot
 * change what it contributes while requests are being served.
 *
 * @param name the plugin's {@code name()}
 * @param spiVersion the SPI version it was compiled against
 * @param source the JAR file name or folder name inside {@code plugins/} it came from
 * @param providers provider descriptors
 * @param executors executor factories
 * @param restatementRules status-restatement rules (SPEC §16.1)
 * @param errorRules provider error rules (SPEC §16.2)
 * @param egressBucketing egress-bucketing hooks (SPEC §16.3)
 * @param quotaFamilies quota families (SPEC ML-1)
 * @param comboStrategies combo strategies (SPEC CO-2)
 * @param modelScopedLimits providers whose limits are per model (SPEC RQ-4)
 */
public record LoadedPlugin(
        String name,
        int spiVersion,
        String source,
        List<ProviderDescriptor> providers,
        List<ExecutorFactory> executors,
        List<RestatementRule> restatementRules,
        List<ErrorRule> errorRules,
        List<EgressBucketing> egressBucketing,
        List<QuotaFamily> quotaFamilies,
        List<ComboStrategy> comboStrategies,
        java.util.Set<String> modelScopedLimits,
        List<dev.sluice.api.oauth.OAuthLogin> oauthLogins) {

    /** Validates the fields and copies the lists. */
    public LoadedPlugin {
        requireNonNull(name, "name is null");
        requireNonNull(source, "source is null");
        providers = List.copyOf(providers);
        executors = List.copyOf(executors);
        restatementRules = List.copyOf(restatementRules);
        errorRules = List.copyOf(errorRules);
        egressBucketing = List.copyOf(egressBucketing);
        quotaFamilies = List.copyOf(quotaFamilies);
        comboStrategies = List.copyOf(comboStrategies);
        modelScopedLimits = java.util.Set.copyOf(modelScopedLimits);
        oauthLogins = oauthLogins == null ? List.of() : List.copyOf(oauthLogins);
    }

    /**
     * A plugin without OAuth logins (the form before issue 36).
     *
     * @param name plugin name
     * @param spiVersion SPI version
     * @param source source
     * @param providers providers
     * @param executors executors
     * @param restatementRules restatement rules
     * @param errorRules error rules
     * @param egressBucketing egress hooks
     * @param quotaFamilies quota families
     * @param comboStrategies combo strategies
     * @param modelScopedLimits providers with per-model limits
     */
    public LoadedPlugin(String name, int spiVersion, String source, List<ProviderDescriptor> providers, List<ExecutorFactory> executors,
            List<RestatementRule> restatementRules, List<ErrorRule> errorRules, List<EgressBucketing> egressBucketing,
            List<QuotaFamily> quotaFamilies, List<ComboStrategy> comboStrategies, java.util.Set<String> modelScopedLimits) {
        this(name, spiVersion, source, providers, executors, restatementRules, errorRules, egressBucketing, quotaFamilies,
                comboStrategies, modelScopedLimits, List.of());
    }

    /**
     * How log lines and conflict messages name this plugin, so an operator can find the file.
     *
     * @return e.g. {@code plugin 'agentrouter' (plugin-agentrouter.jar)}
     */
    String origin() {
        return "plugin '" + name + "' (" + source + ")";
    }
}
