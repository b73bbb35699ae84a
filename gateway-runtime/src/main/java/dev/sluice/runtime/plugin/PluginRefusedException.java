package dev.sluice.runtime.plugin;

/**
 * Why one plugin source or one plugin was refused. Checked, so that every step of the loader says
 * in its signature that it can refuse, and the loader turns it into a {@link PluginFailure} in one
 * place.
 */
final class PluginRefusedException extends Exception {

    PluginRefusedException(String reason) {
        super(reason);
    }

    PluginRefusedException(String reason, Throwable cause) {
        super(reason, cause);
    }

    String reason() {
        return getMessage();
    }
}
