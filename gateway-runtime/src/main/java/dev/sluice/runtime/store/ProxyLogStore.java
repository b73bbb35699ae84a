package dev.sluice.runtime.store;

import java.util.List;

/** Per-attempt log rows. Written in batches off the request path. */
public interface ProxyLogStore {

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
     * Deletes rows older than a time and keeps at most a number of rows (bounded retention).
     *
     * @param olderThan epoch ms
     * @param maxRows rows to keep at most
     * @return rows deleted
     */
    int prune(long olderThan, int maxRows);
}
