package dev.sluice.runtime.resilience.lockout;

/**
 * Which namespace of a provider's lockouts a key model lives in (ML-4). Family keys and model keys
 * are kept apart, so a family named like one of its models ({@code gpt-5}) and a 404 lock of that
 * model never stand for each other. Public for {@link LockoutListener}s, which are told the kind of
 * each lock.
 */
public enum LockoutKind {
    /** A quota family: a 429, 403 or 402 locks every model of the family. */
    FAMILY,
    /** A base model: a 404, or a model-scoped failure of a model without a family. */
    MODEL,
    /** An exact model, lower-cased: every other status. */
    EXACT,
    /** RQ-4: a structured Google RetryInfo too long to queue for; in force even with lockout disabled. */
    RETRY_INFO;

    /** Every kind. */
    static final LockoutKind[] ALL = values();
    /** The kinds in force while model lockout is disabled. */
    static final LockoutKind[] ALWAYS_ON = {RETRY_INFO};
}
