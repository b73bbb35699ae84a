package dev.sluice.runtime.store;

import java.util.List;

/** The {@code usage} table: one row per client request, and totals over a time range. */
public interface UsageStore extends RetainedRowWriter.Table<UsageRow> {

    /**
     * Appends rows in one transaction.
     *
     * @param rows the rows
     */
    void append(List<UsageRow> rows);

    /**
     * Deletes rows older than a time, then all but the newest {@code maxRows}.
     *
     * @param olderThan epoch ms
     * @param maxRows rows kept at most
     * @return rows deleted
     */
    int prune(long olderThan, int maxRows);

    /** What totals are grouped by. */
    enum GroupBy {
        /** The gateway key id. */
        KEY("key_id"),
        /** The provider. */
        PROVIDER("provider"),
        /** The connection. */
        CONNECTION("connection_id"),
        /** The upstream model (as {@code provider/model}). */
        MODEL("provider || '/' || model"),
        /** The UTC day, {@code YYYY-MM-DD}. */
        DAY("strftime('%Y-%m-%d', ts / 1000, 'unixepoch')", "to_char(to_timestamp(ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')");

        private final String sql;
        private final String postgres;

        GroupBy(String sql) {
            this(sql, sql);
        }

        GroupBy(String sql, String postgres) {
            this.sql = sql;
            this.postgres = postgres;
        }

        String sql(Database.Dialect dialect) {
            return dialect == Database.Dialect.POSTGRESQL ? postgres : sql;
        }
    }

    /**
     * Sums of one group for one provider and model (prices are per model, so totals are summed
     * per model first and priced by the caller).
     *
     * @param group the group's value, or null (e.g. requests that reached no provider)
     * @param provider the provider, or null
     * @param model the upstream model, or null
     * @param requests rows
     * @param errors rows with a status of 400 or more
     * @param promptTokens summed prompt tokens
     * @param completionTokens summed completion tokens
     * @param cachedTokens summed cached prompt tokens
     * @param reasoningTokens summed reasoning tokens
     * @param latencyMs summed latency
     * @param attempts summed attempts
     */
    record Sums(String group, String provider, String model, long requests, long errors, long promptTokens, long completionTokens,
            long cachedTokens, long reasoningTokens, long latencyMs, long attempts) {
    }

    /**
     * Totals of the rows with {@code from <= ts < to}, per group and per provider and model.
     *
     * @param from epoch ms, inclusive
     * @param to epoch ms, exclusive
     * @param groupBy the grouping
     * @return the sums, ordered by group
     */
    List<Sums> totals(long from, long to, GroupBy groupBy);
}
