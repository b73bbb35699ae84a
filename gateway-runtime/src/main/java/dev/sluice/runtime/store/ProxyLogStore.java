package dev.sluice.runtime.store;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Per-attempt log rows. Written in batches off the request path. */
public interface ProxyLogStore extends RetainedRowWriter.Table<ProxyLogRow> {

    /**
     * Appends rows in one transaction.
     *
     * @param rows the rows
     */
    void append(List<ProxyLogRow> rows);

    /**
     * The newest rows, newest first.
     *
     * @param limit most rows
     * @return the rows
     */
    List<ProxyLogRow> recent(int limit);

    /**
     * The failed attempts of a time range, newest first: rows with an error type or an upstream
     * status of 400 or more ({@code GET /api/logs} beyond the in-memory ring).
     *
     * @param from epoch ms, inclusive
     * @param to epoch ms, exclusive
     * @param limit most rows
     * @return the rows
     */
    default List<ProxyLogRow> failures(long from, long to, int limit) {
        return List.of();
    }

    /**
     * Deletes rows older than a time and keeps at most a number of rows (bounded retention).
     *
     * @param olderThan epoch ms
     * @param maxRows rows to keep at most
     * @return rows deleted
     */
    int prune(long olderThan, int maxRows);

    /**
     * The last known egress IP of some connections (SPEC EB-2, EB-4): the {@code egress_ip} of each
     * connection's most recent attempt since a time that recorded one. One lookup per connection
     * on the {@code (connection_id, ts)} index.
     *
     * @param connectionIds the connections (of the egress-bucketed family)
     * @param since epoch ms; older attempts are not considered (the 24 h window)
     * @return connection id → egress IP; empty for a store that keeps no history
     */
    default Map<String, String> lastEgressIps(Collection<String> connectionIds, long since) {
        return Map.of();
    }
}
