package dev.sluice.runtime.telemetry;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.runtime.store.ProxyLogStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code GET /api/logs} shows (issue 26): the requests of the {@link RecentRequests} ring
 * with their attempts, merged with the failed attempts persisted in {@code proxy_logs} (the ring
 * forgets, the table keeps every failure for its retention), one entry per request id, newest
 * first. Runs on an admin request, never on the request path.
 */
public final class RequestHistory {

    /** Entries answered when the caller names no limit. */
    public static final int DEFAULT_LIMIT = 100;
    /** Entries answered at most. */
    public static final int MAX_LIMIT = 1000;
    /** Persisted rows read per entry asked: a failed request is a few failed attempts. */
    static final int ROWS_PER_ENTRY = 4;

    /** The highest status there is: a status range up to it filters nothing. */
    public static final int ANY_STATUS = 999;

    /** Where an entry came from. */
    public static final String FROM_RING = "recent";
    /** An entry older than the ring: its persisted failed attempts only. */
    public static final String FROM_LOG = "log";

    private final RecentRequests recent;
    private final ProxyLogStore store;

    /**
     * Creates the view.
     *
     * @param recent the ring
     * @param store the attempt log table
     */
    public RequestHistory(RecentRequests recent, ProxyLogStore store) {
        this.recent = recent;
        this.store = store;
    }

    /**
     * What to show; null filters match everything.
     *
     * @param from epoch ms, inclusive (a request's arrival)
     * @param to epoch ms, exclusive
     * @param statusMin the lowest status shown
     * @param statusMax the highest status shown ({@code 0}–{@value #ANY_STATUS}: every status)
     * @param provider the provider of the request or of any of its attempts, or null
     * @param model the requested model, the upstream model, or any attempt's model, or null
     * @param keyId the caller's key id, or null (entries older than the ring have none)
     * @param limit entries at most, 1–{@value #MAX_LIMIT}
     */
    public record Query(long from, long to, int statusMin, int statusMax, String provider, String model, String keyId, int limit) {
        /** Validates. */
        public Query {
            if (limit < 1 || limit > MAX_LIMIT) {
                throw new IllegalArgumentException("limit must be 1–" + MAX_LIMIT + ", got " + limit);
            }
        }
    }

    /**
     * One request.
     *
     * @param request the request-level facts: from the ring, or for an entry older than the ring
     *     what its persisted attempts tell (no key, api or requested model; the status and
     *     connection of its last persisted attempt, the latency unknown: -1)
     * @param attempts its attempts, oldest first
     * @param source {@value #FROM_RING} or {@value #FROM_LOG}
     */
    public record Entry(RecentRequest request, List<ProxyLogRow> attempts, String source) {
        /** Validates and copies. */
        public Entry {
            requireNonNull(request, "request is null");
            attempts = List.copyOf(attempts);
        }
    }

    /**
     * The answer.
     *
     * @param entries the entries, newest first
     * @param more whether more entries matched than the limit (ask again with {@code to} = the
     *     oldest entry's time)
     * @param ringCapacity requests the ring keeps at most
     */
    public record Result(List<Entry> entries, boolean more, int ringCapacity) {
    }

    /**
     * Answers a query.
     *
     * @param q the query
     * @return the entries
     */
    public Result query(Query q) {
        Map<String, List<ProxyLogRow>> ringAttempts = byRequest(recent.attempts());
        int rowLimit = q.limit() * ROWS_PER_ENTRY;
        List<ProxyLogRow> rows = store.failures(q.from(), q.to(), rowLimit);
        Map<String, List<ProxyLogRow>> persisted = byRequest(rows);
        if (rows.size() == rowLimit && !persisted.isEmpty()) {
            // the oldest request read may have more failed attempts just past the limit
            persisted.remove(rows.getLast().requestId());
        }
        List<Entry> matched = new ArrayList<>();
        Set<String> inRing = new HashSet<>();
        for (RecentRequest r : recent.requests()) {
            inRing.add(r.requestId());
            if (r.startedAtMs() >= q.from() && r.startedAtMs() < q.to()) {
                List<ProxyLogRow> attempts = merged(ringAttempts.get(r.requestId()), persisted.get(r.requestId()));
                keep(matched, new Entry(r, attempts, FROM_RING), q);
            }
        }
        persisted.forEach((id, attempts) -> {
            if (!inRing.contains(id)) {
                keep(matched, fromLog(id, attempts), q);
            }
        });
        matched.sort(Comparator.comparingLong((Entry e) -> e.request().startedAtMs()).reversed());
        boolean more = matched.size() > q.limit();
        return new Result(more ? matched.subList(0, q.limit()) : matched, more, recent.capacity());
    }

    /** Rows by request id (rows without one are nobody's), each list oldest first. */
    private static Map<String, List<ProxyLogRow>> byRequest(List<ProxyLogRow> newestFirst) {
        Map<String, List<ProxyLogRow>> out = new LinkedHashMap<>();
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            ProxyLogRow row = newestFirst.get(i);
            if (row.requestId() != null) {
                out.computeIfAbsent(row.requestId(), k -> new ArrayList<>()).add(row);
            }
        }
        return out;
    }

    /** The ring's attempts, and the persisted ones the ring no longer holds. */
    private static List<ProxyLogRow> merged(List<ProxyLogRow> ring, List<ProxyLogRow> persisted) {
        List<ProxyLogRow> out = new ArrayList<>(ring == null ? List.of() : ring);
        if (persisted != null) {
            for (ProxyLogRow row : persisted) {
                if (!out.contains(row)) {
                    out.add(row);
                }
            }
            out.sort(Comparator.comparingLong(ProxyLogRow::timestamp));
        }
        return out;
    }

    private static Entry fromLog(String requestId, List<ProxyLogRow> attempts) {
        ProxyLogRow first = attempts.getFirst();
        ProxyLogRow last = attempts.getLast();
        return new Entry(new RecentRequest(requestId, first.timestamp(), null, null, null, last.provider(), last.connectionId(),
                last.model(), last.status(), -1, null, last.errorType(), attempts.size()), attempts, FROM_LOG);
    }

    private static void keep(List<Entry> out, Entry e, Query q) {
        RecentRequest r = e.request();
        if (r.status() < q.statusMin() || r.status() > q.statusMax()) {
            return;
        }
        if (q.keyId() != null && !q.keyId().equals(r.keyId())) {
            return;
        }
        if (q.provider() != null && !q.provider().equals(r.provider()) && e.attempts().stream().noneMatch(a -> q.provider().equals(a.provider()))) {
            return;
        }
        if (q.model() != null && !q.model().equals(r.requestedModel()) && !q.model().equals(r.model())
                && e.attempts().stream().noneMatch(a -> q.model().equals(a.model()))) {
            return;
        }
        out.add(e);
    }
}
