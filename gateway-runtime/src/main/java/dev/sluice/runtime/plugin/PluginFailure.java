package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

/**
 * A plugin source that was skipped, kept so that the admin API and the strict start-up check can
 * report it after the fact rather than only in the log.
 *
 * @param source the JAR file name or folder name inside {@code plugins/}
 * @param reason why it was skipped, written for the operator who dropped it there
 * @param providerIds the provider ids the refused plugin declared (empty when it was refused
 *     before they could be read); their connections are refused rather than served by the
 *     generic OpenAI-compatible route
 * @param providersGuessed true when no id could be read from the plugin and {@code providerIds}
 *     were taken from its file and module names instead ({@link NameClaims})
 */
public record PluginFailure(String source, String reason, java.util.Set<String> providerIds, boolean providersGuessed) {

    /** Validates the fields and copies the set. */
    public PluginFailure {
        requireNonNull(source, "source is null");
        requireNonNull(reason, "reason is null");
        providerIds = java.util.Set.copyOf(providerIds);
    }

    @Override
    public String toString() {
        return source + ": " + reason;
    }
}
