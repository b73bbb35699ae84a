package dev.sluice.runtime.routing;

import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.stream.StreamCounters;
import dev.sluice.runtime.stream.StreamEnding;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One attempt's admission to a connection, closed exactly once on every path: the breaker's
 * admission (a half-open probe, when it claimed one), the connection's and model's permits
 * (§12, §14) and the attempt's execution watch (RQ-2). A served answer carries it to the client
 * and closes it when written (a stream: at its last event); a failed attempt closes it after the
 * failure was recorded, so whoever waits for the permit meets the failure's cooldown or pause.
 *
 * <p>Closing it returns the permits, ends the watch, and hands a breaker probe that no outcome
 * settled back as neutral. Layers that count a served answer as in flight (a combo's target)
 * {@linkplain #alsoOnClose add} their own release to it rather than wrapping it.
 */
public final class Lease implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Lease.class.getName());

    private final ResilienceEngine engine;
    private final Candidate candidate;
    private final CircuitBreakers.Admission admission;
    private final ConnectionGates.Permit permit;
    private final AtomicInteger open;
    private final StreamCounters streams;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean breakerSettled;
    private AttemptWatchdog.Watch watch;
    private boolean lastClientGone;
    private Connection sent;
    private List<Runnable> onClose;

    Lease(ResilienceEngine engine, Candidate candidate, CircuitBreakers.Admission admission, ConnectionGates.Permit permit,
            AtomicInteger open, StreamCounters streams) {
        this.streams = streams;
        this.engine = engine;
        this.candidate = candidate;
        this.admission = admission;
        this.permit = permit;
        this.open = open;
        open.incrementAndGet();
    }

    /** @return the connection the lease admits to */
    Candidate candidate() {
        return candidate;
    }

    /** @return the breaker's admission of the attempt */
    CircuitBreakers.Admission admission() {
        return admission;
    }

    /**
     * The connection as the attempt last used it: the admitted one, or it with the OAuth tokens a
     * renewal gave it (issue 36) — what a {@code 401} is held against.
     *
     * @return the connection sent with
     */
    Connection sent() {
        return sent == null ? candidate.connection() : sent;
    }

    /** The attempt is being sent with this connection (its tokens possibly renewed); see {@link #sent()}. */
    void sendingWith(Connection c) {
        sent = c;
    }

    /** Starts the attempt's execution watch (RQ-2). */
    void watch(AttemptWatchdog watchdog, long boundMs, ClientLiveness client) {
        watch = watchdog.watch(boundMs, client);
    }

    /**
     * Ends the attempt's execution watch (the executor returned).
     *
     * @return whether the watch had to stop the attempt
     */
    boolean attemptReturned() {
        AttemptWatchdog.Watch w = watch;
        watch = null;
        lastClientGone = false;
        if (w == null || !w.finish()) {
            return false;
        }
        lastClientGone = w.clientGone();
        return true;
    }

    /** @return whether the last watch stopped the attempt because its client left (after {@link #attemptReturned()}) */
    boolean attemptClientGone() {
        return lastClientGone;
    }

    /** The attempt's outcome reached the breaker (a success or a failure): its admission is settled. */
    void breakerSettled() {
        breakerSettled = true;
    }

    /**
     * Runs {@code release} when the lease closes (before the permits return). Only the owner of
     * the lease's outcome calls this, on the request's own thread.
     *
     * @param release what to release
     */
    public void alsoOnClose(Runnable release) {
        if (closed.get()) {
            release.run();
            return;
        }
        if (onClose == null) {
            onClose = new ArrayList<>(1);
        }
        onClose.add(release);
    }

    /**
     * Records how the stream the lease admitted ended (SPEC §15): counted by reason; a stall is
     * recorded on the connection (CC-5). The gateway's watchdogs never count for the breaker.
     *
     * @param ending how it ended
     * @param message what happened, for the connection's last error
     */
    public void streamEnded(StreamEnding ending, String message) {
        streams.ended(ending);
        if (ending == StreamEnding.STALLED) {
            run(() -> engine.afterStreamStall(candidate, message));
        }
    }

    /** @return whether the lease was closed */
    public boolean isClosed() {
        return closed.get();
    }

    /** Releases everything the admission holds; later calls do nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            attemptReturned();
            if (onClose != null) {
                for (Runnable r : onClose) {
                    run(r);
                }
            }
            if (!breakerSettled) {
                // whatever escaped, a claimed half-open probe must not stay claimed
                run(() -> engine.release(candidate, admission));
            }
        } finally {
            permit.release();
            open.decrementAndGet();
        }
    }

    private static void run(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "releasing an admission failed: " + e);
        }
    }
}
