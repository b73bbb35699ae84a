package dev.sluice.runtime.store;

import java.util.List;

/**
 * The {@code usage} table: one row per minute, key, API, provider, connection and upstream model,
 * which several writers (the instances sharing a PostgreSQL database) add to.
 */
public interface UsageStore extends UsageTotals {

    /**
     * Adds aggregates to the rows of their buckets (creating the rows that are missing) in one
     * transaction: two writers adding to one bucket leave the sum of both.
     *
     * @param aggregates the aggregates, at most one per bucket
     */
    void add(List<UsageAggregate> aggregates);

    /**
     * Deletes the rows of minutes older than a time, then the oldest minutes' rows beyond about
     * {@code maxRows} rows.
     *
     * @param olderThan epoch ms
     * @param maxRows rows kept at most (whole minutes: the boundary minute is kept)
     * @return rows deleted
     */
    int prune(long olderThan, int maxRows);
}
