package dev.sluice.runtime.store;

/**
 * The resilience fields of a connection (SPEC CC-1), in their stored form. Connection cooldown
 * reads {@code testStatus} and {@code rateLimitedUntil} as a {@code resilience.ConnectionStatus},
 * which also says which changes of status are legal.
 *
 * @param testStatus {@code active}, {@code unavailable}, {@code banned}, {@code expired} or {@code credits_exhausted}
 * @param rateLimitedUntil cooldown end, epoch ms, or null
 * @param lastError last error message, or null
 * @param lastErrorType last failure reason, or null
 * @param errorCode last error code, or null
 * @param backoffLevel cooldown escalation level
 * @param expiredRetries OAuth expiry retries so far
 */
public record ConnectionState(
        String testStatus,
        Long rateLimitedUntil,
        String lastError,
        String lastErrorType,
        String errorCode,
        int backoffLevel,
        int expiredRetries) {

    /** A healthy connection. */
    public static final ConnectionState ACTIVE = new ConnectionState("active", null, null, null, null, 0, 0);

    /**
     * Whether this is {@link #ACTIVE}: the same as {@code equals(ACTIVE)}, field by field without the
     * record's generic equality (asked on every successful request, issue 26).
     *
     * @return true for a healthy connection
     */
    public boolean isActive() {
        return this == ACTIVE || backoffLevel == 0 && expiredRetries == 0 && rateLimitedUntil == null && lastError == null
                && lastErrorType == null && errorCode == null && "active".equals(testStatus);
    }
}
