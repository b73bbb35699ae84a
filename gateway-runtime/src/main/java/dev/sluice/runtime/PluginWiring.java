package dev.sluice.runtime;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.catalog.CatalogException;
import dev.sluice.runtime.catalog.ModelCatalog;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.oauth.LoginSettings;
import dev.sluice.runtime.oauth.TokenRefresher;
import dev.sluice.runtime.plugin.DefaultHostContext;
import dev.sluice.runtime.plugin.LoadedPlugin;
import dev.sluice.runtime.plugin.PluginLoader;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.store.PluginConnectionUpdates;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The composition root's providers (issue 35): the plugins loaded from {@code plugins/} with their
 * executors started, every provider (built-in, then the plugins'), the model catalog and the
 * subscription logins the plugins describe.
 *
 * @param registry the loaded plugins, and the refused ones with their reasons
 * @param providers every provider with its executor
 * @param catalog providers by id (refused plugins' providers claimed, SH-2)
 * @param models the model catalog: descriptors < config file < modelPrices setting < operators' PUT (issue 34)
 * @param logins the login descriptions with each plugin's endpoint settings applied (issue 36)
 * @param refreshSkews per provider, how long before expiry a token is refreshed
 */
record PluginWiring(PluginRegistry registry, List<Provider> providers, ProviderCatalog catalog, ModelCatalog models,
        Map<String, OAuthLogin> logins, Map<String, Long> refreshSkews) {

    private static final System.Logger LOG = System.getLogger(PluginWiring.class.getName());

    static PluginWiring load(SluiceConfig config, InstantSource clock, ModuleLayer pluginParent, StorageWiring storage,
            UpstreamWiring upstreams, SharedState shared) {
        Set<String> builtinIds = BuiltinProviders.ALL.stream().map(ProviderDescriptor::id).collect(Collectors.toSet());
        PluginRegistry loaded = PluginLoader.create(config.pluginsDir(), pluginParent, PluginLoader.class.getClassLoader())
                .load(builtinIds, ComboStrategies.builtIn().names(), config.strictPlugins());
        Map<String, ProviderExecutor> builtin = upstreams.builtinExecutors();
        // SH-2: a plugin whose executor cannot start is refused whole, with its providers
        PluginRegistry registry = loaded.startExecutors(p -> {
            Set<String> own = p.providers().stream().map(ProviderDescriptor::id).collect(Collectors.toSet());
            CredentialUpdates updates = new PluginConnectionUpdates(storage.connections(), own);
            return DefaultHostContext.builder(p.name(), upstreams.http(), clock, config.pluginSettings().getOrDefault(p.name(), Map.of()),
                    builtin).credentialUpdates(updates).sharedNotes(shared.notes(p.name()).orElse(null)).build();
        }, config.strictPlugins());
        LOG.log(registry.failures().isEmpty() ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "Plugins from {0}: {1}",
                config.pluginsDir(), registry.summary());

        List<Provider> providers = new ArrayList<>();
        for (ProviderDescriptor d : BuiltinProviders.ALL) {
            providers.add(new Provider(d, builtin.get(d.executor()), Provider.BUILT_IN));
        }
        for (LoadedPlugin p : registry.plugins()) {
            for (ProviderDescriptor d : p.providers()) {
                ProviderExecutor e = registry.executor(d.executor()).orElseGet(() -> builtin.get(d.executor()));
                providers.add(new Provider(d, e, p.name()));
            }
        }
        ProviderCatalog catalog = new ProviderCatalog(providers, upstreams.openAi(), storage.connections(),
                registry.refusedProviders().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                        e -> "plugin source " + e.getValue().source() + " was refused: " + e.getValue().reason())));
        ModelCatalog models;
        try {
            models = new ModelCatalog(ModelCatalog.declaredBy(providers), config.catalog().models(),
                    storage.generalSettings()::modelPrices, storage.settings());
        } catch (CatalogException e) {
            throw new IllegalArgumentException("config file: " + e.getMessage(), e);
        }
        Map<String, Long> skews = new HashMap<>();
        return new PluginWiring(registry, providers, catalog, models, effectiveLogins(registry, config, skews), skews);
    }

    /** Issue 36: the login descriptions of the loaded plugins, with each plugin's endpoint settings applied. */
    private static Map<String, OAuthLogin> effectiveLogins(PluginRegistry registry, SluiceConfig config, Map<String, Long> skews) {
        Map<String, OAuthLogin> logins = new HashMap<>();
        for (LoadedPlugin p : registry.plugins()) {
            Map<String, String> settings = config.pluginSettings().getOrDefault(p.name(), Map.of());
            for (OAuthLogin login : p.oauthLogins()) {
                skews.put(login.provider(), LoginSettings.refreshSkewMs(settings, TokenRefresher.DEFAULT_SKEW_MS));
                try {
                    logins.put(login.provider(), LoginSettings.apply(login, settings));
                } catch (IllegalArgumentException e) {
                    LOG.log(System.Logger.Level.WARNING, "plugins.settings." + p.name() + ": " + e.getMessage()
                            + "; the login of '" + login.provider() + "' uses the plugin's own endpoints");
                    logins.put(login.provider(), login);
                }
            }
        }
        return logins;
    }
}
