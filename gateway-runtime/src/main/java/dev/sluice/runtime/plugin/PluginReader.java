package dev.sluice.runtime.plugin;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.rules.QuotaFamily;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Instantiates one plugin and reads everything it contributes, exactly once. Every call into
 * plugin code happens here and is guarded, because a plugin is third-party code: whatever it
 * throws must cost that plugin its place, not the server its start.
 */
final class PluginReader {

    private PluginReader() {
    }

    /**
     * Reads and checks one plugin on its own, without regard to other plugins.
     *
     * @param provider the service provider found in the plugin's layer
     * @param source the source the plugin came from
     * @return the candidate
     * @throws PluginRefusedException when the plugin throws, is built for another SPI version, or
     *     contributes something invalid
     */
    static PluginCandidate read(ServiceLoader.Provider<ProviderPlugin> provider, String source) throws PluginRefusedException {
        String byClass = "plugin class " + provider.type().getName();
        ProviderPlugin plugin = call(byClass, "its constructor", provider::get);
        String name = call(byClass, "name()", plugin::name);
        if (name == null || name.isBlank()) {
            throw new PluginRefusedException(byClass + " returned a blank name()");
        }
        String who = "plugin '" + name + "'";
        int spiVersion = call(who, "spiVersion()", plugin::spiVersion);
        // Checked before any contribution is read: a plugin built for another SPI may not even
        // link against this one, and its answers would mean something else.
        if (spiVersion != ProviderPlugin.SPI_VERSION) {
            throw new PluginRefusedException(who + " was built for SPI version " + spiVersion
                    + ", but this runtime supports SPI version " + ProviderPlugin.SPI_VERSION
                    + " only; rebuild the plugin against the sluice-api of this release").declaring(declaredIds(plugin));
        }
        List<String> problems = new ArrayList<>();
        List<ProviderDescriptor> providers = list(problems, call(who, "providers()", plugin::providers), "providers()");
        try {
            return readContributions(plugin, name, spiVersion, source, problems, providers);
        } catch (PluginRefusedException e) {
            // issue 27: whatever fails after providers() was read, the ids it declared stay claimed
            throw e.providerIds().isEmpty() ? e.declaring(ids(providers)) : e;
        }
    }

    private static PluginCandidate readContributions(ProviderPlugin plugin, String name, int spiVersion, String source,
            List<String> problems, List<ProviderDescriptor> providers) throws PluginRefusedException {
        String who = "plugin '" + name + "'";
        List<ExecutorFactory> executors = list(problems, call(who, "executors()", plugin::executors), "executors()");
        List<RestatementRule> restatementRules =
                list(problems, call(who, "restatementRules()", plugin::restatementRules), "restatementRules()");
        List<ErrorRule> errorRules = list(problems, call(who, "errorRules()", plugin::errorRules), "errorRules()");
        List<EgressBucketing> egressBucketing =
                list(problems, call(who, "egressBucketing()", plugin::egressBucketing), "egressBucketing()");

        List<QuotaFamily> quotaFamilies = list(problems, call(who, "quotaFamilies()", plugin::quotaFamilies), "quotaFamilies()");
        List<ComboStrategy> comboStrategies = list(problems, call(who, "comboStrategies()", plugin::comboStrategies), "comboStrategies()");
        List<String> strategyNames = names(who, problems, comboStrategies, "combo strategy", ComboStrategy::name);
        java.util.Set<String> modelScopedLimits = modelScoped(problems, call(who, "modelScopedLimits()", plugin::modelScopedLimits),
                providers);
        List<String> executorNames = names(who, problems, executors, "executor", ExecutorFactory::name);
        List<String> egressNames = names(who, problems, egressBucketing, "egress-bucketing hook", EgressBucketing::name);
        List<dev.sluice.api.oauth.OAuthLogin> oauthLogins =
                list(problems, call(who, "oauthLogins()", plugin::oauthLogins), "oauthLogins()");
        checkLogins(problems, oauthLogins, providers);
        checkProviders(problems, providers, executorNames);
        checkRuleIds(problems, restatementRules, "restatement rule", RestatementRule::provider, RestatementRule::id);
        checkRuleIds(problems, errorRules, "error rule", ErrorRule::provider, ErrorRule::id);
        if (!problems.isEmpty()) {
            throw new PluginRefusedException(who + " contributes invalid values: " + String.join("; ", problems));
        }
        LoadedPlugin loaded = new LoadedPlugin(name, spiVersion, source, providers, executors, restatementRules, errorRules,
                egressBucketing, quotaFamilies, comboStrategies, modelScopedLimits, oauthLogins);
        return new PluginCandidate(loaded, executorNames, egressNames, strategyNames);
    }

    /** Issue 36: a login describes one of the plugin's own providers, at most one per provider. */
    private static void checkLogins(List<String> problems, List<dev.sluice.api.oauth.OAuthLogin> logins, List<ProviderDescriptor> providers) {
        Set<String> own = ids(providers);
        Set<String> seen = new HashSet<>();
        for (dev.sluice.api.oauth.OAuthLogin login : logins) {
            if (!own.contains(login.provider())) {
                problems.add("oauthLogins() describes '" + login.provider() + "', which is not one of its providers");
            } else if (!seen.add(login.provider())) {
                problems.add("oauthLogins() describes '" + login.provider() + "' twice");
            }
        }
    }

    /** RQ-4: the providers a plugin says have per-model limits must be its own. */
    private static java.util.Set<String> modelScoped(List<String> problems, java.util.Set<String> declared, List<ProviderDescriptor> providers) {
        if (declared == null) {
            problems.add("modelScopedLimits() returned null");
            return java.util.Set.of();
        }
        java.util.Set<String> own = new java.util.HashSet<>();
        providers.forEach(p -> own.add(p.id()));
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String id : declared) {
            if (id == null || !own.contains(id)) {
                problems.add("modelScopedLimits() names " + (id == null ? "null" : "'" + id + "'") + ", which is not one of its providers");
            } else {
                out.add(id);
            }
        }
        return out;
    }

    /**
     * The provider ids of a plugin that is refused for its SPI version, best effort: a plugin
     * built against another SPI may not link, and then its ids stay unknown.
     */
    private static Set<String> declaredIds(ProviderPlugin plugin) {
        try {
            List<ProviderDescriptor> declared = plugin.providers();
            return declared == null ? Set.of() : ids(declared);
        } catch (Exception | LinkageError e) {
            return Set.of();
        }
    }

    private static Set<String> ids(List<ProviderDescriptor> providers) {
        Set<String> ids = new HashSet<>();
        for (ProviderDescriptor d : providers) {
            if (d != null) {
                ids.add(d.id());
            }
        }
        return ids;
    }

    private static <T> T call(String who, String what, Supplier<T> call) throws PluginRefusedException {
        try {
            return call.get();
        } catch (ServiceConfigurationError e) {
            // ServiceLoader wraps the constructor's own exception; the operator wants that one.
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new PluginRefusedException(who + " threw from " + what + ": " + Causes.chain(cause), cause);
        } catch (Exception | LinkageError e) {
            throw new PluginRefusedException(who + " threw from " + what + ": " + Causes.chain(e), e);
        }
    }

    /** Null lists and null elements are recorded as problems so one report shows them all. */
    private static <T> List<T> list(List<String> problems, List<T> returned, String method) {
        if (returned == null) {
            problems.add(method + " returned null instead of a list");
            return List.of();
        }
        List<T> copy = new ArrayList<>(returned.size());
        for (T element : returned) {
            if (element == null) {
                problems.add(method + " returned a null element");
            } else {
                copy.add(element);
            }
        }
        return List.copyOf(copy);
    }

    private static <T> List<String> names(String who, List<String> problems, List<T> contributions, String kind,
            Function<T, String> nameOf) throws PluginRefusedException {
        List<String> names = new ArrayList<>(contributions.size());
        Set<String> seen = new HashSet<>();
        for (T contribution : contributions) {
            String name = call(who, "name() of " + kind + " " + contribution.getClass().getName(),
                    () -> nameOf.apply(contribution));
            if (name == null || name.isBlank()) {
                problems.add(kind + " " + contribution.getClass().getName() + " has a blank name()");
            } else if (!seen.add(name)) {
                problems.add(kind + " name '" + name + "' is contributed twice");
            }
            names.add(name == null ? "" : name);
        }
        return names;
    }

    private static void checkProviders(List<String> problems, List<ProviderDescriptor> providers, List<String> executorNames) {
        Set<String> ids = new HashSet<>();
        for (ProviderDescriptor descriptor : providers) {
            if (!ids.add(descriptor.id())) {
                problems.add("provider id '" + descriptor.id() + "' is contributed twice");
            }
            String executor = descriptor.executor();
            if (!executor.equals(HostContext.OPENAI_COMPATIBLE) && !executor.equals(HostContext.OPENAI_RESPONSES)
                    && !executorNames.contains(executor)) {
                problems.add("provider '" + descriptor.id() + "' names executor '" + executor + "', which is neither a built-in ('"
                        + HostContext.OPENAI_COMPATIBLE + "', '" + HostContext.OPENAI_RESPONSES + "') nor an executor of this plugin "
                        + (executorNames.isEmpty() ? "(it contributes none)" : "(it contributes " + executorNames + ")"));
            }
        }
    }

    private static <R> void checkRuleIds(List<String> problems, List<R> rules, String kind, Function<R, String> provider,
            Function<R, String> id) {
        Set<String> seen = new HashSet<>();
        for (R rule : rules) {
            if (id.apply(rule).isBlank()) {
                problems.add(kind + " of provider '" + provider.apply(rule) + "' has a blank id");
            } else if (!seen.add(provider.apply(rule) + '\u0000' + id.apply(rule))) {
                problems.add(kind + " '" + id.apply(rule) + "' of provider '" + provider.apply(rule) + "' is contributed twice");
            }
        }
    }
}
