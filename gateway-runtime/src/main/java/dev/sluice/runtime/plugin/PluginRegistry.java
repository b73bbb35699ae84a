package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.rules.QuotaFamily;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.Optional;

/**
 * What the plugins contributed, fixed at start-up. Immutable so that request threads read it
 * without locks, and so that what {@code GET /api/plugins} reports is what is actually in force.
 * Lists are in load order (plugins sorted by file name), which is the order rules are evaluated in.
 * Built-in providers and the built-in executor are not in here: lookups answer for plugin
 * contributions only.
 */
public final class PluginRegistry {

    private static final PluginRegistry EMPTY = new PluginRegistry(List.of(), List.of(), Map.of());

    private final List<LoadedPlugin> plugins;
    private final List<PluginFailure> failures;
    private final Map<String, ExecutorFactory> executors;
    private final Map<String, ProviderDescriptor> descriptors;
    private final Map<String, LoadedPlugin> owners;
    private final List<RestatementRule> restatementRules;
    private final List<ErrorRule> errorRules;
    private final List<EgressBucketing> egressBucketing;
    private final List<QuotaFamily> quotaFamilies;
    private final List<ComboStrategy> comboStrategies;
    private final Set<String> modelScopedLimits;

    PluginRegistry(List<LoadedPlugin> plugins, List<PluginFailure> failures, Map<String, ExecutorFactory> executors) {
        this.plugins = List.copyOf(plugins);
        this.failures = List.copyOf(failures);
        this.executors = Map.copyOf(executors);
        Map<String, ProviderDescriptor> descriptorsById = new HashMap<>();
        Map<String, LoadedPlugin> ownersById = new HashMap<>();
        for (LoadedPlugin plugin : this.plugins) {
            for (ProviderDescriptor descriptor : plugin.providers()) {
                descriptorsById.put(descriptor.id(), descriptor);
                ownersById.put(descriptor.id(), plugin);
            }
        }
        this.descriptors = Map.copyOf(descriptorsById);
        this.owners = Map.copyOf(ownersById);
        this.restatementRules = this.plugins.stream().flatMap(p -> p.restatementRules().stream()).toList();
        this.errorRules = this.plugins.stream().flatMap(p -> p.errorRules().stream()).toList();
        this.egressBucketing = this.plugins.stream().flatMap(p -> p.egressBucketing().stream()).toList();
        this.quotaFamilies = this.plugins.stream().flatMap(p -> p.quotaFamilies().stream()).toList();
        this.comboStrategies = this.plugins.stream().flatMap(p -> p.comboStrategies().stream()).toList();
        this.modelScopedLimits = this.plugins.stream().flatMap(p -> p.modelScopedLimits().stream())
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /**
     * A registry without plugins, for a runtime started without a plugins folder and for tests.
     *
     * @return the empty registry
     */
    public static PluginRegistry empty() {
        return EMPTY;
    }

    /**
     * The loaded plugins.
     *
     * @return plugins in load order
     */
    public List<LoadedPlugin> plugins() {
        return plugins;
    }

    /**
     * The sources and plugins that were skipped, so the admin API can show why a provider is
     * missing without the operator reading the start-up log.
     *
     * @return failures in load order
     */
    public List<PluginFailure> failures() {
        return failures;
    }

    /**
     * The descriptor a plugin contributed for a provider id.
     *
     * @param providerId provider id
     * @return the descriptor, or empty for a built-in or unknown provider
     */
    public Optional<ProviderDescriptor> descriptor(String providerId) {
        return Optional.ofNullable(descriptors.get(requireNonNull(providerId, "providerId is null")));
    }

    /**
     * The plugin that contributed a provider id, e.g. to give its executor the plugin's settings.
     *
     * @param providerId provider id
     * @return the owning plugin, or empty for a built-in or unknown provider
     */
    public Optional<LoadedPlugin> ownerOf(String providerId) {
        return Optional.ofNullable(owners.get(requireNonNull(providerId, "providerId is null")));
    }

    /**
     * A plugin's executor factory by its {@link ExecutorFactory#name()}.
     *
     * @param name executor name
     * @return the factory, or empty for the built-in executor or an unknown name
     */
    public Optional<ExecutorFactory> executorFactory(String name) {
        return Optional.ofNullable(executors.get(requireNonNull(name, "name is null")));
    }

    /**
     * Every plugin's restatement rules (SPEC §16.1).
     *
     * @return rules in load order
     */
    public List<RestatementRule> restatementRules() {
        return restatementRules;
    }

    /**
     * Every plugin's error rules (SPEC §16.2).
     *
     * @return rules in load order
     */
    public List<ErrorRule> errorRules() {
        return errorRules;
    }

    /**
     * Every plugin's egress-bucketing hooks (SPEC §16.3).
     *
     * @return hooks in load order
     */
    public List<EgressBucketing> egressBucketing() {
        return egressBucketing;
    }

    @Override
    public String toString() {
        return "PluginRegistry[plugins=" + plugins.stream().map(LoadedPlugin::origin).toList() + ", failures=" + failures.size() + "]";
    }

    /**
     * Every plugin's quota families (SPEC ML-1).
     *
     * @return the families
     */
    public List<QuotaFamily> quotaFamilies() {
        return quotaFamilies;
    }

    /**
     * The providers whose limits are per model (RQ-4), of every plugin.
     *
     * @return provider ids
     */
    public Set<String> modelScopedLimits() {
        return modelScopedLimits;
    }

    /**
     * Every plugin's combo strategies (SPEC CO-2).
     *
     * @return the strategies
     */
    public List<ComboStrategy> comboStrategies() {
        return comboStrategies;
    }
}
