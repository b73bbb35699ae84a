package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;
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

    private static final System.Logger LOG = System.getLogger(PluginRegistry.class.getName());
    private static final PluginRegistry EMPTY = new PluginRegistry(List.of(), List.of(), Map.of(), Map.of());

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
    private final Map<String, ProviderExecutor> running;
    private final Map<String, PluginFailure> refusedProviders;

    /**
     * @param plugins the plugins kept
     * @param failures the sources refused
     * @param executors the plugins' executor factories, by name
     * @param running the executors already started, by name (none before the registry starts them)
     */
    PluginRegistry(List<LoadedPlugin> plugins, List<PluginFailure> failures, Map<String, ExecutorFactory> executors,
            Map<String, ProviderExecutor> running) {
        this.running = Map.copyOf(running);
        Map<String, PluginFailure> refused = new HashMap<>();
        for (PluginFailure failure : failures) {
            failure.providerIds().forEach(id -> refused.putIfAbsent(id, failure));
        }
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
        // a provider another plugin serves is not refused because a later copy clashed with it
        refused.keySet().removeAll(descriptorsById.keySet());
        this.refusedProviders = Map.copyOf(refused);
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

    /**
     * Creates every plugin's executors (SPEC SH-2), once, at start-up. A plugin one of whose
     * factories throws or returns null is refused whole, exactly like a plugin refused at load
     * time: it moves to {@link #failures()} with the cause chain, and its providers to
     * {@link #refusedProviders()}, so that it is neither reported as healthy nor served by the
     * generic OpenAI-compatible route behind its back.
     *
     * @param hosts the host context handed to each plugin's factories
     * @param strict when true, a failing factory ends start-up instead (for CI)
     * @return a registry with the started executors
     * @throws PluginLoadException when strict and a factory failed
     */
    public PluginRegistry startExecutors(java.util.function.Function<LoadedPlugin, HostContext> hosts, boolean strict) {
        requireNonNull(hosts, "hosts is null");
        List<LoadedPlugin> kept = new java.util.ArrayList<>();
        List<PluginFailure> allFailures = new java.util.ArrayList<>(failures);
        List<PluginFailure> newFailures = new java.util.ArrayList<>();
        Map<String, ExecutorFactory> keptFactories = new HashMap<>();
        Map<String, ProviderExecutor> started = new HashMap<>();
        for (LoadedPlugin plugin : plugins) {
            HostContext host = hosts.apply(plugin);
            Map<String, ProviderExecutor> own = new HashMap<>();
            String problem = null;
            for (ExecutorFactory factory : plugin.executors()) {
                String name = name(factory);
                try {
                    ProviderExecutor executor = factory.create(host);
                    if (executor == null) {
                        problem = "executor '" + name + "': ExecutorFactory.create returned null";
                        break;
                    }
                    own.put(name, executor);
                } catch (Exception | LinkageError e) {
                    problem = "executor '" + name + "' failed to start: " + Causes.chain(e);
                    LOG.log(System.Logger.Level.DEBUG, () -> plugin.origin() + ": executor '" + name + "' failed to start", e);
                    break;
                }
            }
            if (problem == null) {
                kept.add(plugin);
                started.putAll(own);
                plugin.executors().forEach(f -> keptFactories.put(name(f), f));
                continue;
            }
            Set<String> ids = new java.util.HashSet<>();
            plugin.providers().forEach(d -> ids.add(d.id()));
            PluginFailure failure = new PluginFailure(plugin.source(), plugin.origin() + ": " + problem
                    + "; the plugin is refused and its providers " + ids.stream().sorted().toList() + " are not served", ids, false);
            LOG.log(System.Logger.Level.WARNING, "Plugin source {0} skipped: {1}", plugin.source(), failure.reason());
            allFailures.add(failure);
            newFailures.add(failure);
        }
        if (strict && !newFailures.isEmpty()) {
            throw new PluginLoadException(newFailures);
        }
        return new PluginRegistry(kept, allFailures, keptFactories, started);
    }

    /** Names were checked at load time; read again guarded, as every call into plugin code is. */
    private static String name(ExecutorFactory factory) {
        try {
            return String.valueOf(factory.name());
        } catch (RuntimeException e) {
            return factory.getClass().getName();
        }
    }

    /**
     * A started executor of a plugin, by name ({@link #startExecutors}).
     *
     * @param name executor name
     * @return the executor, or empty before start or for an unknown name
     */
    public Optional<ProviderExecutor> executor(String name) {
        return Optional.ofNullable(running.get(requireNonNull(name, "name is null")));
    }

    /**
     * Provider ids declared by a plugin that was refused, with the refusal. Connections of these
     * providers are refused at creation and answered with an error naming the plugin, instead of
     * being served by the generic OpenAI-compatible route.
     *
     * @return refused provider ids to the failure that refused them
     */
    public Map<String, PluginFailure> refusedProviders() {
        return refusedProviders;
    }

    /**
     * The start-up summary line (issue 27): refused plugins are counted and named with the
     * providers they keep claimed, so a broken plugin never reads as "0 skipped".
     *
     * @return e.g. {@code 2 loaded [acme, zenith], 1 refused [broken.jar (providers [broken])]}
     */
    public String summary() {
        return plugins.size() + " loaded " + plugins.stream().map(LoadedPlugin::name).toList() + ", " + failures.size() + " refused "
                + failures.stream().map(f -> f.source() + " (providers " + f.providerIds().stream().sorted().toList() + ")").toList();
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
