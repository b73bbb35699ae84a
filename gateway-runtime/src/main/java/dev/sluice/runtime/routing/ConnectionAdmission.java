package dev.sluice.runtime.routing;

import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.stream.StreamCounters;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admits a request's attempts to its connections, one at a time, in walk order: the breaker's
 * admission (§6) and the connection's caps and queue (§12, §14) together, as one {@link Lease}.
 * A connection whose cap is full is passed over while another may start at once; only when every
 * one is full does the request wait — at the first of them — and a request that waited re-reads
 * its connection, which may have been cooled, locked or opened meanwhile.
 */
final class ConnectionAdmission {

    private static final System.Logger LOG = System.getLogger(ConnectionAdmission.class.getName());

    private final ConnectionSelector selector;
    private final ResilienceEngine engine;
    private final ConnectionGates gates;
    private final AdmissionPolicy policy;
    private final InstantSource clock;
    private final AtomicInteger openLeases = new AtomicInteger();
    private final StreamCounters streams = new StreamCounters();

    ConnectionAdmission(ConnectionSelector selector, ResilienceEngine engine, ConnectionGates gates, AdmissionPolicy policy,
            InstantSource clock) {
        this.selector = selector;
        this.engine = engine;
        this.gates = gates;
        this.policy = policy;
        this.clock = clock;
    }

    /** @return how streams ended, by reason */
    StreamCounters streams() {
        return streams;
    }

    /** @return leases handed out and not yet closed */
    int openLeases() {
        return openLeases.get();
    }

    /** One step of a walk: an admitted attempt, or a connection's gate that refused. */
    sealed interface Step {
    }

    /**
     * An attempt may go to the lease's connection.
     *
     * @param lease the admission; the caller closes it
     * @param limits the connection's limits for this request
     */
    record Granted(Lease lease, ConnectionGates.Limits limits) implements Step {
    }

    /**
     * A connection's gate refused the request; nothing was sent.
     *
     * @param refusal why
     * @param retryAfterMs when trying again may help, ms (0: unknown)
     * @param connection the connection
     */
    record Refusal(ConnectionGates.Refusal refusal, long retryAfterMs, Connection connection) implements Step {
    }

    /**
     * Opens a request's walk over a route's connections.
     *
     * @param route the route
     * @param caller the caller
     * @param requestId the request id (for logs)
     * @return the walk
     */
    Walk open(Route route, Caller caller, String requestId) {
        return new Walk(route, caller, requestId, selector.open(route, caller));
    }

    /** One request's walk; not thread-safe. */
    final class Walk {
        private final Route route;
        private final Caller caller;
        private final String requestId;
        private final ConnectionSelector.Cursor cursor;
        /** Connections passed over because their cap was full: the request waits at the first when none has room. */
        private final List<Candidate> full = new ArrayList<>(0);
        private boolean waited;
        private boolean ended;

        private Walk(Route route, Caller caller, String requestId, ConnectionSelector.Cursor cursor) {
            this.route = route;
            this.caller = caller;
            this.requestId = requestId;
            this.cursor = cursor;
        }

        /** @return the walk's cursor (what was held back, and why) */
        ConnectionSelector.Cursor cursor() {
            return cursor;
        }

        /** The failure path decided that no other connection is tried: {@link #next} has nothing more. */
        void end() {
            ended = true;
        }

        /**
         * The next admitted attempt or refusal.
         *
         * @return the step, or null when no connection is left (or the walk was {@linkplain #end ended})
         */
        Step next() {
            while (!ended) {
                boolean fromFull = false;
                Candidate candidate = cursor.next();
                if (candidate == null) {
                    if (full.isEmpty()) {
                        return null;
                    }
                    candidate = full.removeFirst();
                    fromFull = true;
                }
                Step step = fromFull && !waited ? afterWaiting(candidate) : atOnce(candidate, fromFull);
                if (step != null) {
                    return step;
                }
            }
            return null;
        }

        /** Admission without waiting: the breaker first, as everywhere (a probe claimed here is used at once). */
        private Step atOnce(Candidate candidate, boolean fromFull) {
            Connection c = candidate.connection();
            ConnectionGates.Limits limits = policy.limits(c, route.upstreamModel(), caller.quotaShare());
            CircuitBreakers.Admission admission = engine.acquire(candidate);
            if (!admission.admitted()) {
                cursor.refusedByBreaker(candidate);
                return null;
            }
            ConnectionGates.Entry entry = gates.tryEnter(c.id(), route.upstreamModel(), limits);
            if (entry == null) {
                // full now: another connection may start at once; come back to wait here if none can
                engine.release(candidate, admission);
                if (!fromFull) {
                    full.add(candidate);
                }
                return null;
            }
            entry = failOpen(entry, c, limits);
            if (entry instanceof ConnectionGates.Refused refused) {
                engine.release(candidate, admission);
                return new Refusal(refused.refusal(), refused.retryAfterMs(), c);
            }
            return new Granted(new Lease(engine, candidate, admission, (ConnectionGates.Permit) entry, openLeases, streams), limits);
        }

        /** Every connection is full: wait at this one, then take the breaker's admission. */
        private Step afterWaiting(Candidate candidate) {
            waited = true;
            Connection c = candidate.connection();
            ConnectionGates.Limits limits = policy.limits(c, route.upstreamModel(), caller.quotaShare());
            ConnectionGates.Entry entry;
            try {
                entry = gates.enter(c.id(), route.upstreamModel(), limits,
                        caller.client() == ClientLiveness.ALWAYS ? null : caller.client()::connected);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Refusal(ConnectionGates.Refusal.CLIENT_DISCONNECTED, 0, c);
            }
            if (entry == null) {
                return null;
            }
            entry = failOpen(entry, c, limits);
            if (entry instanceof ConnectionGates.Refused refused) {
                return new Refusal(refused.refusal(), refused.retryAfterMs(), c);
            }
            ConnectionGates.Permit permit = (ConnectionGates.Permit) entry;
            // the connection may have been cooled, locked or opened meanwhile
            Candidate current = cursor.refreshed(candidate);
            if (current == null) {
                permit.release();
                return null;
            }
            Exclusion heldNow = engine.exclusion(current, clock.millis());
            if (heldNow != null) {
                permit.release();
                cursor.heldBack(current, heldNow);
                return null;
            }
            CircuitBreakers.Admission admission = engine.acquire(current);
            if (!admission.admitted()) {
                permit.release();
                cursor.refusedByBreaker(current);
                return null;
            }
            return new Granted(new Lease(engine, current, admission, permit, openLeases, streams), limits);
        }

        /** QC-3: a quota-share combo's request takes its turn on the account, but is never refused for want of one. */
        private ConnectionGates.Entry failOpen(ConnectionGates.Entry entry, Connection c, ConnectionGates.Limits limits) {
            if (!(entry instanceof ConnectionGates.Refused refused) || !caller.quotaShare() || limits.connectionCap() <= 0
                    || refused.refusal() == ConnectionGates.Refusal.CLIENT_DISCONNECTED) {
                return entry;
            }
            // fails open past the connection's cap only: a model cap, a pause or pacing still hold
            ConnectionGates.Permit open = gates.failOpen(c.id(), route.upstreamModel(), limits);
            if (open == null) {
                return entry;
            }
            LOG.log(System.Logger.Level.DEBUG, () -> "quota-share request " + requestId + " goes ahead on connection " + c.id()
                    + " without a turn (" + refused.refusal() + ")");
            return open;
        }
    }
}
