package dev.sluice.api.rules;

import java.util.Locale;

/** What a failure locks (SPEC §5 {@code lockScope}, ER-1 {@code scope}). */
public enum LockScope {
    /** The model's quota family on that connection. */
    MODEL,
    /** The whole connection. */
    CONNECTION,
    /** The whole provider. */
    PROVIDER,
    /** Exactly provider + connection + model. */
    EXACT;

    /**
     * The wire name, e.g. {@code model}.
     *
     * @return the lower-case name
     */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
