package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import java.util.List;

/**
 * Where breaker state survives restarts (SPEC CB-7), in the breakers' own terms. The database
 * implementation is {@link RowBackedBreakerStore} over the store's
 * {@link dev.sluice.runtime.store.BreakerRowStore}: the store keeps plain rows and never sees
 * these types, so the dependency runs one way, resilience → store. Calls for one key arrive in
 * order; an implementation may throw an unchecked exception, which the breakers log and otherwise
 * ignore (a database hiccup must not fail requests).
 */
public interface BreakerStore {

    /**
     * The store over the breaker table (CB-7): rows are mapped here, not in the store package.
     *
     * @param rows the table
     * @return the store
     */
    static BreakerStore rows(dev.sluice.runtime.store.BreakerRowStore rows) {
        return new RowBackedBreakerStore(rows);
    }

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
            return builder(key, BreakerState.CLOSED).providerClass(cls).updatedAt(now).build();
        }

        /**
         * A builder whose unset fields are those of a breaker with no history (zero counts, no
         * times, no kind, no class): ten fields, most of them zero or null in any one state, read
         * better by name than by position.
         *
         * @param key the breaker
         * @param state its state
         * @return the builder
         */
        public static Builder builder(BreakerKey key, BreakerState state) {
            return new Builder(key, state);
        }

        /** Builds a {@link BreakerSnapshot} field by field; not thread-safe, use it and drop it. */
        public static final class Builder {
            private final BreakerKey key;
            private final BreakerState state;
            private ProviderClass providerClass;
            private int failureCount;
            private int openCycles;
            private Long openedAt;
            private Long lastFailureAt;
            private String lastFailureKind;
            private int consecutiveSuccesses;
            private long updatedAt;

            private Builder(BreakerKey key, BreakerState state) {
                this.key = key;
                this.state = state;
            }

            /** @param v the class last seen, or null @return this */
            public Builder providerClass(ProviderClass v) {
                providerClass = v;
                return this;
            }

            /** @param v counted failures @return this */
            public Builder failureCount(int v) {
                failureCount = v;
                return this;
            }

            /** @param v open cycles @return this */
            public Builder openCycles(int v) {
                openCycles = v;
                return this;
            }

            /** @param v epoch ms when last opened, or null @return this */
            public Builder openedAt(Long v) {
                openedAt = v;
                return this;
            }

            /** @param at epoch ms of the last counted failure, or null @param kind its kind, or null @return this */
            public Builder lastFailure(Long at, String kind) {
                lastFailureAt = at;
                lastFailureKind = kind;
                return this;
            }

            /** @param v successes in a row while {@code DEGRADED} @return this */
            public Builder consecutiveSuccesses(int v) {
                consecutiveSuccesses = v;
                return this;
            }

            /** @param v epoch ms of the last change @return this */
            public Builder updatedAt(long v) {
                updatedAt = v;
                return this;
            }

            /** @return the validated snapshot */
            public BreakerSnapshot build() {
                return new BreakerSnapshot(key, providerClass, state, failureCount, openCycles, openedAt, lastFailureAt,
                        lastFailureKind, consecutiveSuccesses, updatedAt);
            }
        }
    }
}
