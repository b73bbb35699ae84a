package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

/**
 * One row of {@code domain_circuit_breakers} (SPEC DM-3, CB-7), column for column. The values are
 * kept as stored (the state and class as their names): what they mean, and whether a row still
 * makes sense, is the breakers' business, so the store never depends on the resilience core.
 *
 * @param provider the provider id
 * @param host the upstream {@code host:port}
 * @param providerClass the provider class's wire name, or null
 * @param state the breaker state's name (e.g. {@code OPEN})
 * @param failureCount counted failures
 * @param openCycles open cycles
 * @param openedAt epoch ms when the breaker last opened, or null
 * @param lastFailureAt epoch ms of the last counted failure, or null
 * @param lastFailureKind the last counted failure's kind, or null
 * @param consecutiveSuccesses successes in a row while degraded
 * @param updatedAt epoch ms of the last change
 */
public record BreakerRow(String provider, String host, String providerClass, String state, int failureCount,
        int openCycles, Long openedAt, Long lastFailureAt, String lastFailureKind, int consecutiveSuccesses,
        long updatedAt) {

    /** Validates the NOT NULL columns. */
    public BreakerRow {
        requireNonNull(provider, "provider is null");
        requireNonNull(host, "host is null");
        requireNonNull(state, "state is null");
    }

    /** @return the primary key, {@code provider@host} */
    public String key() {
        return key(provider, host);
    }

    /**
     * @param provider the provider id
     * @param host the upstream {@code host:port}
     * @return the primary key of their row
     */
    static String key(String provider, String host) {
        return provider + "@" + host;
    }
}
