package dev.sluice.runtime.plugin;

/**
 * Why one plugin source or one plugin was refused. Checked, so that every step of the loader says
 * in its signature that it can refuse, and the loader turns it into a {@link PluginFailure} in one
 * place.
 */
final class PluginRefusedException extends Exception {

    /** The provider ids the refused plugin declared, when they were read before it was refused. */
    private java.util.Set<String> providerIds = java.util.Set.of();

    PluginRefusedException(String reason) {
        super(reason);
    }

    PluginRefusedException(String reason, Throwable cause) {
        super(reason, cause);
    }

    String reason() {
        return getMessage();
    }

    /**
     * Records the provider ids the refused plugin declared, so that their connections are refused
     * too instead of falling back to the generic OpenAI-compatible route.
     */
    PluginRefusedException declaring(java.util.Set<String> ids) {
        providerIds = java.util.Set.copyOf(ids);
        return this;
    }

    java.util.Set<String> providerIds() {
        return providerIds;
    }

    /** Module names read from the refused source, from which its provider ids are guessed when none were read. */
    private java.util.Set<String> modules = java.util.Set.of();

    /** Records the module names of the refused source ({@link NameClaims}). */
    PluginRefusedException inModules(java.util.Collection<String> names) {
        modules = java.util.Set.copyOf(names);
        return this;
    }

    java.util.Set<String> modules() {
        return modules;
    }
}
