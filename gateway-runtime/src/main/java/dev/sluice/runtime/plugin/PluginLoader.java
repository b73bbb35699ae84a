package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * Loads the plugins of a plugins folder (SPEC SH-2) into a {@link PluginRegistry}. Each source gets
 * a layer of its own whose parent is the given layer, so that plugins never see each other's
 * classes or private dependencies. Anything wrong with one source is logged with the file name and
 * the reason, and that source is skipped: a broken plugin must not keep the gateway from serving
 * the providers that do work.
 */
public final class PluginLoader {

    private static final Logger LOG = System.getLogger(PluginLoader.class.getName());

    private final Path pluginsDir;
    private final PluginLayers layers;

    private PluginLoader(Path pluginsDir, PluginLayers layers) {
        this.pluginsDir = pluginsDir;
        this.layers = layers;
    }

    /**
     * A loader for one plugins folder.
     *
     * @param pluginsDir the plugins folder; it need not exist
     * @param parent the layer every plugin layer sits on; {@link ModuleLayer#boot()} in production
     * @param parentLoader the parent class loader of every plugin layer's class loader (null for the bootstrap loader)
     * @return the loader
     */
    public static PluginLoader create(Path pluginsDir, ModuleLayer parent, ClassLoader parentLoader) {
        requireNonNull(pluginsDir, "pluginsDir is null");
        requireNonNull(parent, "parent is null");
        return new PluginLoader(pluginsDir, new PluginLayers(parent, parentLoader));
    }

    /**
     * Loads every source in file-name order.
     *
     * @param builtinProviderIds provider ids the runtime serves itself; plugins may not claim them
     * @param strict when true, any failure ends start-up instead of being skipped (for CI)
     * @return the registry, failures included
     * @throws PluginLoadException when strict and any source or plugin failed
     */
    public PluginRegistry load(Set<String> builtinProviderIds, boolean strict) {
        return load(builtinProviderIds, Set.of(), strict);
    }

    /**
     * Loads every source in file-name order, refusing plugins that claim a built-in name.
     *
     * @param builtinProviderIds provider ids the runtime serves itself; plugins may not claim them
     * @param builtinComboStrategies combo strategy names the runtime defines; plugins may not claim them
     * @param strict when true, any failure ends start-up instead of being skipped (for CI)
     * @return the registry, failures included
     * @throws PluginLoadException when strict and any source or plugin failed
     */
    public PluginRegistry load(Set<String> builtinProviderIds, Set<String> builtinComboStrategies, boolean strict) {
        Set<String> builtinIds = Set.copyOf(requireNonNull(builtinProviderIds, "builtinProviderIds is null"));
        RegistryBuilder builder = new RegistryBuilder(builtinIds,
                Set.copyOf(requireNonNull(builtinComboStrategies, "builtinComboStrategies is null")));
        if (Files.notExists(pluginsDir)) {
            LOG.log(Level.INFO, "No plugins folder at {0}; running with the built-in providers only", pluginsDir);
            return builder.build();
        }
        List<PluginSource> sources;
        try {
            sources = PluginSource.scan(pluginsDir);
        } catch (IOException e) {
            // no source could be seen, so no name to claim a provider id by
            String reason = "plugins folder " + pluginsDir + " cannot be listed (" + e + ")";
            builder.fail(new PluginFailure(PluginSource.fileName(pluginsDir), reason, Set.of(), false));
            LOG.log(Level.WARNING, reason);
            sources = List.of();
        }
        for (PluginSource source : sources) {
            load(source, builder, builtinIds);
        }
        PluginRegistry registry = builder.build();
        // the start-up summary is the server's, logged once executors have started (issue 27):
        // a count taken here would call healthy a plugin whose executor is about to be refused
        LOG.log(Level.DEBUG, "Plugins read from {0}: {1}", pluginsDir, registry.summary());
        if (strict && !registry.failures().isEmpty()) {
            throw new PluginLoadException(registry.failures());
        }
        return registry;
    }

    private void load(PluginSource source, RegistryBuilder builder, Set<String> builtins) {
        List<ServiceLoader.Provider<ProviderPlugin>> providers;
        try {
            providers = providers(layers.define(source));
        } catch (PluginRefusedException e) {
            refuse(builder, source.name(), builtins, e);
            return;
        }
        for (ServiceLoader.Provider<ProviderPlugin> provider : providers) {
            try {
                PluginCandidate candidate = PluginReader.read(provider, source.name());
                builder.admit(candidate);
                LoadedPlugin plugin = candidate.plugin();
                LOG.log(Level.INFO, "Loaded {0}: providers {1}, executors {2}, {3} restatement rules, {4} error rules,"
                        + " {5} egress-bucketing hooks, combo strategies {6}", plugin.origin(),
                        plugin.providers().stream().map(ProviderDescriptor::id).toList(), candidate.executorNames(),
                        plugin.restatementRules().size(), plugin.errorRules().size(), plugin.egressBucketing().size(),
                        candidate.comboStrategyNames());
            } catch (PluginRefusedException e) {
                refuse(builder, source.name(), builtins, e.providerIds().isEmpty() ? e.inModules(Set.of(moduleOf(provider))) : e);
            }
        }
    }

    /**
     * The plugins a layer itself provides. {@code ServiceLoader.load(layer, ...)} also returns the
     * providers of the parent layers, which would make every plugin appear once per layer; and a
     * private dependency that happens to carry a services file is not a plugin. Sorted by module
     * name because the order of modules within a layer is unspecified.
     */
    private static List<ServiceLoader.Provider<ProviderPlugin>> providers(ModuleLayer layer) throws PluginRefusedException {
        List<ServiceLoader.Provider<ProviderPlugin>> providers;
        try {
            providers = ServiceLoader.load(layer, ProviderPlugin.class).stream()
                    .filter(p -> p.type().getModule().getLayer() == layer)
                    .filter(p -> !p.type().getModule().getDescriptor().isAutomatic())
                    .sorted(Comparator.comparing(p -> p.type().getModule().getName()))
                    .toList();
        } catch (ServiceConfigurationError e) {
            throw new PluginRefusedException("its " + ProviderPlugin.class.getName() + " provider cannot be loaded ("
                    + PluginLayers.rootMessage(e) + ")", e);
        }
        if (providers.isEmpty()) {
            throw new PluginRefusedException("provides no " + ProviderPlugin.class.getName());
        }
        return providers;
    }

    private static String moduleOf(ServiceLoader.Provider<ProviderPlugin> provider) {
        return provider.type().getModule().getName();
    }

    /**
     * Records a refusal. Its provider ids stay claimed (issue 27): the ones read from the plugin,
     * or, when none could be read, the ones its file and module names suggest, so that its
     * connections are never served by the generic OpenAI-compatible route.
     */
    private static void refuse(RegistryBuilder builder, String source, Set<String> builtins, PluginRefusedException e) {
        boolean guessed = e.providerIds().isEmpty();
        Set<String> ids = guessed ? NameClaims.guess(source, e.modules(), builtins) : e.providerIds();
        PluginFailure failure = new PluginFailure(source, e.reason(), ids, guessed && !ids.isEmpty());
        builder.fail(failure);
        if (e.getCause() == null) {
            LOG.log(Level.WARNING, "Plugin source {0} skipped: {1}", source, e.reason());
        } else {
            LOG.log(Level.WARNING, () -> "Plugin source " + source + " skipped: " + e.reason(), e.getCause());
        }
    }
}
