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

    private final List<LoadedPlugin> plugins = new ArrayList<>();
    private final Map<String, ExecutorFactory> executors = new LinkedHashMap<>();
    private final List<PluginFailure> failures = new ArrayList<>();

    RegistryBuilder(Set<String> builtinProviderIds) {
        for (String id : builtinProviderIds) {
            providerIds.put(id, BUILT_IN);
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
            throw new PluginRefusedException(plugin.origin() + ": " + String.join("; ", clashes));
        }
        for (Claim claim : claims) {
            claim.taken().put(claim.key(), plugin.origin());
        }
        plugins.add(plugin);
        for (int i = 0; i < plugin.executors().size(); i++) {
            executors.put(candidate.executorNames().get(i), plugin.executors().get(i));
        }
    }

    void fail(PluginFailure failure) {
        failures.add(failure);
    }

    PluginRegistry build() {
        return new PluginRegistry(plugins, failures, executors);
    }

    private record Claim(Map<String, String> taken, String what, String key) {
    }
}
