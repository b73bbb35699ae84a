package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import java.util.List;

/**
 * Where breaker state survives restarts (SPEC CB-7, table {@code domain_circuit_breakers}). Calls
 * for one key arrive in order; an implementation may throw an unchecked exception, which the
 * breakers log and otherwise ignore (a database hiccup must not fail requests).
 */
public interface BreakerStore {

    /**
     * A store that keeps nothing: breakers live in memory only (tests, benchmarks, embedded use).
     *
     * @return the store
     */
    static BreakerStore none() {
        return new BreakerStore() {
            @Override
            public List<BreakerSnapshot> loadAll() {
                return List.of();
            }

            @Override
            public void save(BreakerSnapshot s) {
            }

            @Override
            public void delete(BreakerKey k) {
            }

            @Override
            public void deleteAll() {
            }
        };
    }


    /**
     * Every persisted breaker.
     *
     * @return the snapshots
     */
    List<BreakerSnapshot> loadAll();

    /**
     * Inserts or replaces the row of {@code s.key()}.
     *
     * @param s the snapshot
     */
    void save(BreakerSnapshot s);

    /**
     * Deletes one breaker's row (absent rows are fine).
     *
     * @param k the key
     */
    void delete(BreakerKey k);

    /** Deletes every row. */
    void deleteAll();

    /**
     * The persisted fields of one breaker. A claimed half-open probe is deliberately not among
     * them: after a restart a {@code HALF_OPEN} breaker has no probe in flight.
     *
     * @param key the breaker
     * @param providerClass the provider class last seen for this breaker (selects the profile for
     *     views that have no caller's class), or null when unknown
     * @param state the state
     * @param failureCount counted failures
     * @param openCycles open cycles (CB-4)
     * @param openedAt epoch ms when the breaker last opened, or null
     * @param lastFailureAt epoch ms of the last counted failure, or null
     * @param lastFailureKind the last counted failure's kind, or null
     * @param consecutiveSuccesses successes in a row while {@code DEGRADED} (CB-5)
     * @param updatedAt epoch ms of the last change
     */
    record BreakerSnapshot(BreakerKey key, ProviderClass providerClass, BreakerState state, int failureCount,
            int openCycles, Long openedAt, Long lastFailureAt, String lastFailureKind, int consecutiveSuccesses,
            long updatedAt) {

        /** Validates. */
        public BreakerSnapshot {
            requireNonNull(key, "key is null");
            requireNonNull(state, "state is null");
            if (failureCount < 0 || openCycles < 0 || consecutiveSuccesses < 0) {
                throw new IllegalArgumentException("negative counter in " + key);
            }
        }

        /**
         * A breaker with no history.
         *
         * @param key the breaker
         * @param cls its class, or null
         * @param now epoch ms
         * @return a {@code CLOSED} snapshot with zero counts
         */
        public static BreakerSnapshot pristine(BreakerKey key, ProviderClass cls, long now) {
            return new BreakerSnapshot(key, cls, BreakerState.CLOSED, 0, 0, null, null, null, 0, now);
        }
    }
}
