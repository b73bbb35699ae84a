package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.store.ProxyLogRow;
import java.util.List;

/**
 * The last inference requests and upstream attempts, in memory only, for {@code GET /api/logs}
 * (issue 26): an operator's recent history without a {@code proxy_logs} row per success. Two
 * fixed-size {@link Ring}s: one small immutable entry per finished request, and the attempt rows
 * themselves (already built for the attempt log, so an attempt costs no allocation here). Lost on
 * restart by design; failures outlive it in {@code proxy_logs}.
 */
public final class RecentRequests {

    /** Requests kept by default. */
    public static final int DEFAULT_CAPACITY = 1024;
    /** Attempt slots per request slot: room for one failover per request before attempts age out first. */
    static final int ATTEMPTS_PER_REQUEST = 2;

    private final Ring<RecentRequest> requests;
    private final Ring<ProxyLogRow> attempts;

    /**
     * Creates the rings.
     *
     * @param capacity requests kept, a power of two ({@link #DEFAULT_CAPACITY} by default)
     */
    public RecentRequests(int capacity) {
        this.requests = new Ring<>(capacity);
        this.attempts = new Ring<>(capacity * ATTEMPTS_PER_REQUEST);
    }

    /**
     * A request was answered; only inference requests are kept (admin calls, probes and scrapes
     * would push them out).
     */
    void finished(RequestRecord r, int status, long latencyMs) {
        if (Api.metered(r.api())) {
            add(RecentRequest.of(r, status, latencyMs));
        }
    }

    void add(RecentRequest request) {
        requests.add(request);
    }

    /**
     * An upstream attempt was made.
     *
     * @param row the attempt
     */
    public void attempt(ProxyLogRow row) {
        attempts.add(row);
    }

    /** @return the requests kept at most */
    public int capacity() {
        return requests.capacity();
    }

    /** @return the requests held, newest finished first */
    public List<RecentRequest> requests() {
        return requests.snapshot();
    }

    /** @return the attempts held, newest first */
    public List<ProxyLogRow> attempts() {
        return attempts.snapshot();
    }
}
