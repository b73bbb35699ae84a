package dev.sluice.runtime.store;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Usage totals over a time range, grouped (SPEC DM-3, {@code GET /api/usage}): what the
 * {@code usage} table answers, and what the in-memory accounting answers with the minutes it has
 * not written yet added in.
 */
public interface UsageTotals {

    /** What totals are grouped by. The table stores {@code ''} for an unknown key, provider, connection or model. */
    enum GroupBy {
        /** The gateway key id. */
        KEY("NULLIF(key_id, '')", null, UsageAggregate::keyId),
        /** The provider. */
        PROVIDER("NULLIF(provider, '')", null, UsageAggregate::provider),
        /** The connection. */
        CONNECTION("NULLIF(connection_id, '')", null, UsageAggregate::connectionId),
        /** The upstream model (as {@code provider/model}; unknown when either is). */
        MODEL("NULLIF(provider, '') || '/' || NULLIF(model, '')", null,
                a -> a.provider() == null || a.model() == null ? null : a.provider() + "/" + a.model()),
        /** The UTC day, {@code YYYY-MM-DD}. */
        DAY("strftime('%Y-%m-%d', ts / 1000, 'unixepoch')", "to_char(to_timestamp(ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
                a -> LocalDate.ofInstant(java.time.Instant.ofEpochMilli(a.minute()), ZoneOffset.UTC).toString()),
        /** The UTC hour, {@code YYYY-MM-DDTHH:00:00Z} (issue 33: the dashboard's 24 h and 7 d charts). */
        HOUR("strftime('%Y-%m-%dT%H:00:00Z', ts / 1000, 'unixepoch')",
                "to_char(to_timestamp(ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:00:00\"Z\"')",
                a -> java.time.Instant.ofEpochMilli(a.minute()).truncatedTo(java.time.temporal.ChronoUnit.HOURS).toString()),
        /** The UTC minute, {@code YYYY-MM-DDTHH:MM:00Z} (issue 33: the dashboard's 1 h chart). */
        MINUTE("strftime('%Y-%m-%dT%H:%M:00Z', ts / 1000, 'unixepoch')",
                "to_char(to_timestamp(ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:00\"Z\"')",
                a -> java.time.Instant.ofEpochMilli(a.minute()).truncatedTo(java.time.temporal.ChronoUnit.MINUTES).toString());

        private final String sql;
        private final String postgres;
        private final Function<UsageAggregate, String> of;

        /** {@code postgres}: the PostgreSQL form of {@code sql}, or null when it is the same. */
        GroupBy(String sql, String postgres, Function<UsageAggregate, String> of) {
            this.sql = sql;
            this.postgres = postgres == null ? sql : postgres;
            this.of = of;
        }

        String sql(Database.Dialect dialect) {
            return dialect == Database.Dialect.POSTGRESQL ? postgres : sql;
        }

        /**
         * The group of an aggregate, as the SQL expression computes it for a stored row.
         *
         * @param a the aggregate
         * @return its group, or null
         */
        public String of(UsageAggregate a) {
            return of.apply(a);
        }
    }

    /**
     * Sums of one group for one provider and model (prices are per model, so totals are summed
     * per model first and priced by the caller).
     *
     * @param group the group's value, or null (e.g. requests that reached no provider)
     * @param provider the provider, or null
     * @param model the upstream model, or null
     * @param requests requests
     * @param errors requests answered with a status of 400 or more
     * @param promptTokens summed prompt tokens
     * @param completionTokens summed completion tokens
     * @param cachedTokens summed cached prompt tokens
     * @param reasoningTokens summed reasoning tokens
     * @param latencyMs summed latency
     * @param attempts summed attempts
     */
    record Sums(String group, String provider, String model, long requests, long errors, long promptTokens, long completionTokens,
            long cachedTokens, long reasoningTokens, long latencyMs, long attempts) {

        /** Ordered by group, provider and model, unknown first (the order of the answer). */
        public static final Comparator<Sums> ORDER = Comparator.comparing(Sums::group, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
                .thenComparing(Sums::provider, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
                .thenComparing(Sums::model, Comparator.nullsFirst(Comparator.<String>naturalOrder()));

        /**
         * The sums of an aggregate in a group.
         *
         * @param group the group
         * @param a the aggregate
         * @return its sums
         */
        public static Sums of(String group, UsageAggregate a) {
            return new Sums(group, a.provider(), a.model(), a.requests(), a.errors(), a.promptTokens(), a.completionTokens(),
                    a.cachedTokens(), a.reasoningTokens(), a.latencyMs(), a.attempts());
        }

        Sums plus(Sums o) {
            return new Sums(group, provider, model, requests + o.requests, errors + o.errors, promptTokens + o.promptTokens,
                    completionTokens + o.completionTokens, cachedTokens + o.cachedTokens, reasoningTokens + o.reasoningTokens,
                    latencyMs + o.latencyMs, attempts + o.attempts);
        }

        /**
         * Sums of several sources added up per group, provider and model, in {@link #ORDER}.
         *
         * @param parts the sums
         * @return one sum per group, provider and model
         */
        public static List<Sums> merge(List<Sums> parts) {
            Map<List<String>, Sums> by = new LinkedHashMap<>();
            for (Sums s : parts) {
                // Arrays.asList: a key that may hold nulls
                by.merge(java.util.Arrays.asList(s.group, s.provider, s.model), s, Sums::plus);
            }
            List<Sums> out = new ArrayList<>(by.values());
            out.sort(ORDER);
            return out;
        }
    }

    /**
     * Totals of the requests that arrived in a minute {@code m} with {@code from <= m < to}, per
     * group and per provider and model.
     *
     * @param from epoch ms, inclusive
     * @param to epoch ms, exclusive
     * @param groupBy the grouping
     * @return the sums, in {@link Sums#ORDER}
     */
    List<Sums> totals(long from, long to, GroupBy groupBy);
}
