package dev.sluice.runtime.store;

import java.util.List;

/**
 * Where breaker state survives restarts (SPEC CB-7, table {@code domain_circuit_breakers}), in
 * rows. Calls for one key arrive in order; an implementation may throw an unchecked exception,
 * which the breakers log and otherwise ignore (a database hiccup must not fail requests).
 */
public interface BreakerRowStore {

    /**
     * Every row, ordered by key.
     *
     * @return the rows
     */
    List<BreakerRow> loadAll();

    /**
     * Inserts or replaces the row of {@code row.key()}.
     *
     * @param row the row
     */
    void save(BreakerRow row);

    /**
     * Deletes one breaker's row (absent rows are fine).
     *
     * @param provider the provider id
     * @param host the upstream {@code host:port}
     */
    void delete(String provider, String host);

    /** Deletes every row. */
    void deleteAll();
}
