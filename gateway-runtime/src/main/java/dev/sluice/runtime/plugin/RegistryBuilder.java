package dev.sluice.runtime.plugin;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admits plugins in load order and refuses one whose names are already claimed. A refused plugin
 * is refused whole: keeping the parts that do not clash would leave, say, error rules for a
 * provider whose descriptor belongs to someone else.
 */
final class RegistryBuilder {

    /** The origin named in messages for what the runtime itself defines. */
    static final String BUILT_IN = "built-in";

    private final Map<String, String> pluginNames = new HashMap<>();
    private final Map<String, String> providerIds = new HashMap<>();
    private final Map<String, String> executorNames = new HashMap<>();
    private final Map<String, String> egressBucketingNames = new HashMap<>();
    private final Map<String, String> restatementRuleIds = new HashMap<>();
    private final Map<String, String> errorRuleIds = new HashMap<>();
    private final Map<String, String> comboStrategyNames = new HashMap<>();

    private final List<LoadedPlugin> plugins = new ArrayList<>();
    private final Map<String, ExecutorFactory> executors = new LinkedHashMap<>();
    private final List<PluginFailure> failures = new ArrayList<>();

    RegistryBuilder(Set<String> builtinProviderIds, Set<String> builtinComboStrategies) {
        for (String id : builtinProviderIds) {
            providerIds.put(id, BUILT_IN);
        }
        // CO-2: a strategy under a built-in's name used to be skipped with a warning while the rest
        // of its plugin loaded; now the plugin is refused whole, like any other clash
        for (String name : builtinComboStrategies) {
            comboStrategyNames.put(name, BUILT_IN);
        }
        // A plugin executor under the built-in's name would make descriptors ambiguous.
        executorNames.put(HostContext.OPENAI_COMPATIBLE, BUILT_IN);
        executorNames.put(HostContext.OPENAI_RESPONSES, BUILT_IN);
    }

    /**
     * Admits a plugin unless one of its names is already claimed by a built-in or by a plugin
     * admitted earlier.
     *
     * @param candidate the plugin
     * @throws PluginRefusedException naming every clash with both origins
     */
    void admit(PluginCandidate candidate) throws PluginRefusedException {
        LoadedPlugin plugin = candidate.plugin();
        List<Claim> claims = new ArrayList<>();
        claims.add(new Claim(pluginNames, "plugin name '" + plugin.name() + "'", plugin.name()));
        for (ProviderDescriptor descriptor : plugin.providers()) {
            claims.add(new Claim(providerIds, "provider id '" + descriptor.id() + "'", descriptor.id()));
        }
        for (String name : candidate.executorNames()) {
            claims.add(new Claim(executorNames, "executor name '" + name + "'", name));
        }
        for (String name : candidate.egressBucketingNames()) {
            claims.add(new Claim(egressBucketingNames, "egress-bucketing hook name '" + name + "'", name));
        }
        for (String name : candidate.comboStrategyNames()) {
            claims.add(new Claim(comboStrategyNames, "combo strategy name '" + name + "'", name));
        }
        for (RestatementRule rule : plugin.restatementRules()) {
            claims.add(new Claim(restatementRuleIds, "restatement rule '" + rule.id() + "' of provider '" + rule.provider() + "'",
                    rule.provider() + '\u0000' + rule.id()));
        }
        for (ErrorRule rule : plugin.errorRules()) {
            claims.add(new Claim(errorRuleIds, "error rule '" + rule.id() + "' of provider '" + rule.provider() + "'",
                    rule.provider() + '\u0000' + rule.id()));
        }

        List<String> clashes = new ArrayList<>();
        for (Claim claim : claims) {
            String owner = claim.taken().get(claim.key());
            if (owner != null) {
                clashes.add(claim.what() + " is already claimed by " + owner);
            }
        }
        if (!clashes.isEmpty()) {
            String owner = pluginNames.get(plugin.name());
            // the ids nobody else owns are this plugin's: their connections must not fall through
            Set<String> own = new java.util.HashSet<>();
            plugin.providers().forEach(d -> own.add(d.id()));
            own.removeAll(providerIds.keySet());
            // issue 27: two copies of one plugin lead with the file to remove, the clashes follow
            String first = owner == null ? plugin.origin() + ": " : duplicateHint(plugin, owner);
            throw new PluginRefusedException(first + String.join("; ", clashes)).declaring(own);
        }
        for (Claim claim : claims) {
            claim.taken().put(claim.key(), plugin.origin());
        }
        plugins.add(plugin);
        for (int i = 0; i < plugin.executors().size(); i++) {
            executors.put(candidate.executorNames().get(i), plugin.executors().get(i));
        }
    }

    /**
     * Two copies of one plugin (typically {@code acme-1.0.0.jar} beside {@code acme-1.0.1.jar}
     * after an upgrade): the file loaded first, by name, wins, which is rarely the one meant, so
     * the message names the file to remove.
     */
    private String duplicateHint(LoadedPlugin plugin, String owner) {
        String loaded = sourceOf(owner);
        return "remove " + loaded + " from plugins/ to use " + plugin.source() + " (or remove " + plugin.source() + " to keep " + loaded
                + ") and restart: two copies of plugin '" + plugin.name() + "' are in plugins/, " + loaded + " is loaded and "
                + plugin.source() + " is ignored; " + plugin.origin() + ": ";
    }

    /** The source file named in an origin such as {@code plugin 'acme' (acme-1.0.0.jar)}. */
    private static String sourceOf(String origin) {
        int open = origin.lastIndexOf(" (");
        return open < 0 || !origin.endsWith(")") ? origin : origin.substring(open + 2, origin.length() - 1);
    }

    void fail(PluginFailure failure) {
        failures.add(failure);
    }

    PluginRegistry build() {
        return new PluginRegistry(plugins, failures, executors, Map.of());
    }

    private record Claim(Map<String, String> taken, String what, String key) {
    }
}
