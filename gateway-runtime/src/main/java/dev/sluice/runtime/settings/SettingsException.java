package dev.sluice.runtime.settings;

/**
 * A settings value that breaks the schema (SE-1, SE-4): the admin API answers 400 naming
 * {@link #path()}. Stack-less: a refused PATCH is a normal outcome.
 */
public final class SettingsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String path;

    /**
     * Creates the error.
     *
     * @param path the dotted path of the offending setting (e.g. {@code modelLockout.maxCooldownMs}),
     *     or null when the whole body is wrong
     * @param message what is wrong, for a human
     */
    public SettingsException(String path, String message) {
        super(message, null, false, false);
        this.path = path;
    }

    /**
     * The offending setting.
     *
     * @return its dotted path, or null when the whole body is wrong
     */
    public String path() {
        return path;
    }
}
