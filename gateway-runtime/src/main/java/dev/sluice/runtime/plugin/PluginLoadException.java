package dev.sluice.runtime.plugin;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown at start-up in strict mode when any plugin source failed. CI runs strict so that a plugin
 * that would silently be skipped in production fails the build instead; the message lists every
 * failure, not only the first, so one run shows everything to fix.
 */
final class PluginLoadException extends RuntimeException {

    private final List<PluginFailure> failures;

    PluginLoadException(List<PluginFailure> failures) {
        super(message(failures));
        this.failures = List.copyOf(failures);
    }

    /**
     * Every failure, in the order the sources were processed.
     *
     * @return the failures
     */
    public List<PluginFailure> failures() {
        return failures;
    }

    private static String message(List<PluginFailure> failures) {
        String header = failures.size() == 1
                ? "1 plugin source failed to load (strict mode):"
                : failures.size() + " plugin sources failed to load (strict mode):";
        return failures.stream().map(f -> "  - " + f).collect(Collectors.joining("\n", header + "\n", ""));
    }
}
