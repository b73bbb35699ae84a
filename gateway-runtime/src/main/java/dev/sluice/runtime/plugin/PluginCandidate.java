package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A plugin whose own contributions are valid, before the registry has checked them against the
 * plugins loaded earlier. The names are kept beside the plugin because they were read once, at
 * load time: asking a plugin object for its name again could give another answer or throw.
 *
 * @param plugin the plugin and its contributions
 * @param executorNames {@code name()} of each executor factory, in the same order
 * @param egressBucketingNames {@code name()} of each egress-bucketing hook, in the same order
 * @param comboStrategyNames {@code name()} of each combo strategy, in the same order
 */
record PluginCandidate(LoadedPlugin plugin, List<String> executorNames, List<String> egressBucketingNames,
        List<String> comboStrategyNames) {

    PluginCandidate {
        requireNonNull(plugin, "plugin is null");
        executorNames = List.copyOf(executorNames);
        egressBucketingNames = List.copyOf(egressBucketingNames);
        comboStrategyNames = List.copyOf(comboStrategyNames);
        if (executorNames.size() != plugin.executors().size()
                || egressBucketingNames.size() != plugin.egressBucketing().size()) {
            throw new IllegalArgumentException("names do not match the contributions of " + plugin.origin());
        }
    }
}
