package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.routing.AttemptRecorder;
import dev.sluice.runtime.store.ProxyLogRow;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * The attempt log (issue 26): every upstream attempt goes to the {@link RecentRequests} ring, and
 * only what an operator or the resilience layer needs later becomes a {@code proxy_logs} row:
 * <ul>
 *   <li>every failed attempt (an error type, or an upstream status of 400 or more);</li>
 *   <li>a success whose egress IP differs from the last one persisted for its connection, or
 *       when none was persisted for it in the last {@value #EGRESS_REFRESH_MS} ms: the last known
 *       egress IP of SPEC EB-2/EB-4 is read from the table (24 h window, by every instance sharing
 *       it), so the table must keep saying where each connection leaves from;</li>
 *   <li>a sample of the other successes ({@code logging.proxyLogSuccessSample}).</li>
 * </ul>
 * A success costs one random draw and, with an egress IP, one map lookup; nothing is allocated
 * unless a row is persisted.
 */
public final class AttemptLog implements AttemptRecorder {

    /**
     * A connection's egress IP is persisted again after this long even when it did not change, so
     * EB-2's 24 h lookup finds it as long as the connection is in use (its window shrinks by this
     * much at most).
     */
    public static final long EGRESS_REFRESH_MS = 10 * 60_000L;
    /** Connections whose last persisted egress IP is remembered; past it the memory starts afresh. */
    static final int MAX_TRACKED_CONNECTIONS = 10_000;

    private final RecentRequests recent;
    private final AttemptRecorder persist;
    private final double successSample;
    private final DoubleSupplier random;
    private final ConcurrentHashMap<String, Persisted> lastEgress = new ConcurrentHashMap<>();

    /** Draws from {@link ThreadLocalRandom}: the sampling of a running server (tests draw from a script). */
    public static final DoubleSupplier RANDOM = () -> ThreadLocalRandom.current().nextDouble();

    /**
     * Creates the log.
     *
     * @param recent the ring of recent requests and attempts
     * @param persist where persisted rows go (the {@code proxy_logs} writer); must not block
     * @param successSample the share of successes persisted, 0–1
     * @param random draws in [0, 1) that decide which successes are persisted ({@link #RANDOM} but in tests)
     */
    public AttemptLog(RecentRequests recent, AttemptRecorder persist, double successSample, DoubleSupplier random) {
        if (!(successSample >= 0 && successSample <= 1)) {
            throw new IllegalArgumentException("successSample must be 0–1, got " + successSample);
        }
        this.recent = recent;
        this.persist = persist;
        this.successSample = successSample;
        this.random = random;
    }

    /**
     * Whether an attempt failed.
     *
     * @param row the attempt
     * @return true when it carries an error type or an upstream status of 400 or more
     */
    public static boolean failed(ProxyLogRow row) {
        return row.errorType() != null || row.status() >= 400;
    }

    @Override
    public void record(ProxyLogRow row) {
        recent.attempt(row);
        if (failed(row) || egressNews(row) || sampled()) {
            persist.record(row);
            remember(row);
        }
    }

    private boolean sampled() {
        return successSample > 0 && (successSample >= 1 || random.getAsDouble() < successSample);
    }

    /** Whether the table would otherwise tell a stale or no egress IP for the connection. */
    private boolean egressNews(ProxyLogRow row) {
        if (row.egressIp() == null || row.connectionId() == null) {
            return false;
        }
        Persisted last = lastEgress.get(row.connectionId());
        return last == null || !last.ip.equals(row.egressIp()) || row.timestamp() - last.at >= EGRESS_REFRESH_MS;
    }

    private void remember(ProxyLogRow row) {
        if (row.egressIp() == null || row.connectionId() == null) {
            return;
        }
        if (lastEgress.size() >= MAX_TRACKED_CONNECTIONS) {
            lastEgress.clear();
        }
        lastEgress.put(row.connectionId(), new Persisted(row.egressIp(), row.timestamp()));
    }

    private record Persisted(String ip, long at) {
    }
}
