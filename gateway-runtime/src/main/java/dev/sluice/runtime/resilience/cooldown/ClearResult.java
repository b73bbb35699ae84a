package dev.sluice.runtime.resilience.cooldown;

/** The result of clearing one connection's cooldown (CC-8). */
public enum ClearResult {
    /** Its cooldown and error fields were cleared. */
    CLEARED,
    /** It had nothing to clear. */
    UNCHANGED,
    /** It is terminal; left as is. */
    SKIPPED_TERMINAL
}
