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
        RegistryBuilder builder = new RegistryBuilder(Set.copyOf(requireNonNull(builtinProviderIds, "builtinProviderIds is null")),
                Set.copyOf(requireNonNull(builtinComboStrategies, "builtinComboStrategies is null")));
        if (Files.notExists(pluginsDir)) {
            LOG.log(Level.INFO, "No plugins folder at {0}; running with the built-in providers only", pluginsDir);
            return builder.build();
        }
        List<PluginSource> sources;
        try {
            sources = PluginSource.scan(pluginsDir);
        } catch (IOException e) {
            refuse(builder, PluginSource.fileName(pluginsDir),
                    new PluginRefusedException("plugins folder " + pluginsDir + " cannot be listed (" + e + ")", e));
            sources = List.of();
        }
        for (PluginSource source : sources) {
            load(source, builder);
        }
        PluginRegistry registry = builder.build();
        LOG.log(Level.INFO, "Plugins from {0}: {1} loaded {2}, {3} skipped", pluginsDir, registry.plugins().size(),
                registry.plugins().stream().map(LoadedPlugin::name).toList(), registry.failures().size());
        if (strict && !registry.failures().isEmpty()) {
            throw new PluginLoadException(registry.failures());
        }
        return registry;
    }

    private void load(PluginSource source, RegistryBuilder builder) {
        List<ServiceLoader.Provider<ProviderPlugin>> providers;
        try {
            providers = providers(layers.define(source));
        } catch (PluginRefusedException e) {
            refuse(builder, source.name(), e);
            return;
        }
        for (ServiceLoader.Provider<ProviderPlugin> provider : providers) {
            try {
                PluginCandidate candidate = PluginReader.read(provider, source.name());
                builder.admit(candidate);
                LoadedPlugin plugin = candidate.plugin();
                LOG.log(Level.INFO, "Loaded {0}: providers {1}, executors {2}, {3} restatement rules, {4} error rules,"
                        + " {5} egress-bucketing hooks", plugin.origin(),
                        plugin.providers().stream().map(ProviderDescriptor::id).toList(), candidate.executorNames(),
                        plugin.restatementRules().size(), plugin.errorRules().size(), plugin.egressBucketing().size());
            } catch (PluginRefusedException e) {
                refuse(builder, source.name(), e);
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

    private static void refuse(RegistryBuilder builder, String source, PluginRefusedException e) {
        PluginFailure failure = new PluginFailure(source, e.reason(), e.providerIds());
        builder.fail(failure);
        if (e.getCause() == null) {
            LOG.log(Level.WARNING, "Plugin source {0} skipped: {1}", source, e.reason());
        } else {
            LOG.log(Level.WARNING, () -> "Plugin source " + source + " skipped: " + e.reason(), e.getCause());
        }
    }
}
