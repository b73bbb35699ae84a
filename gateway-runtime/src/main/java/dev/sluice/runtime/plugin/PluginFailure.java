package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

/**
 * A plugin source that was skipped, kept so that the admin API and the strict start-up check can
 * report it after the fact rather than only in the log.
 *
 * @param source the JAR file name or folder name inside {@code plugins/}
 * @param reason why it was skipped, written for the operator who dropped it there
 */
public record PluginFailure(String source, String reason) {

    /** Validates the fields. */
    public PluginFailure {
        requireNonNull(source, "source is null");
        requireNonNull(reason, "reason is null");
    }

    @Override
    public String toString() {
        return source + ": " + reason;
    }
}
