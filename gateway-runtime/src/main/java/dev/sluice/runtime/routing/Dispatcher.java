package dev.sluice.runtime.routing;

import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.engine.AttemptSettlement;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.engine.FailedAttempt;
import dev.sluice.runtime.resilience.engine.FailureDecision;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.runtime.stream.StreamCounters;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.runtime.upstream.EgressRoutes;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.function.Function;

/**
 * The attempt loop of one route: walks the route's connections in order; each attempt is
 * admitted as one {@link Lease} ({@link ConnectionAdmission}), run ({@link AttemptRunner}), and
 * settled — a success with the mechanisms' bookkeeping, a failure through the resilience
 * package's failure path ({@link AttemptSettlement#failed}), whose decision says whether the next
 * connection is tried, or the walk ends. Every attempt is recorded (one {@code proxy_logs} row each)
 * and counted on the request's {@link AttemptTally}; the walk's result is the one {@link Outcome}.
 */
public final class Dispatcher implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final ConnectionAdmission admission;
    private final AttemptRunner runner;
    private final AttemptSettlement settlement;
    private final ResilienceEngine engine;
    private final AttemptRecorder recorder;
    private final AttemptEffects effects;
    private final InstantSource clock;
    private final AttemptWatchdog watchdog = new AttemptWatchdog();
    private final SessionRouting sessions;

    private Dispatcher(Builder b) {
        this.sessions = b.sessions;
        this.engine = b.engine;
        this.recorder = b.recorder;
        this.clock = b.clock;
        this.admission = new ConnectionAdmission(b.selector, b.engine, b.gates, b.admissionPolicy, b.clock);
        this.runner = new AttemptRunner(b.egress, watchdog, b.admissionPolicy, b.attemptTimeout.toMillis(), b.jsonObjectParser, b.tokens);
        this.settlement = new AttemptSettlement(b.engine, b.gates, b.admissionPolicy, b.clock, b.events);
        this.effects = new AttemptEffects(b.selector, b.engine);
    }

    /**
     * Starts a dispatcher with what every one needs; the rest has defaults (issue 35: one way to make one).
     *
     * @param selector connection selection
     * @param engine the resilience engine
     * @param recorder attempt log
     * @param clock the clock
     * @param egress the outbound routes: each attempt leaves through its connection's
     *     {@code localAddress} / {@code proxyUrl} (§16.3)
     * @param gates the caps and request queue in front of each connection (§12, §14)
     * @param admissionPolicy what limits a request on a connection
     * @param attemptTimeout the executors' own start timeout (the least execution bound, RQ-2)
     * @return the builder
     */
    public static Builder builder(ConnectionSelector selector, ResilienceEngine engine, AttemptRecorder recorder, InstantSource clock,
            EgressRoutes egress, ConnectionGates gates, AdmissionPolicy admissionPolicy, Duration attemptTimeout) {
        return new Builder(selector, engine, recorder, clock, egress, gates, admissionPolicy, attemptTimeout);
    }

    /** What a dispatcher is made of; the optional parts default to none. */
    public static final class Builder {
        private final ConnectionSelector selector;
        private final ResilienceEngine engine;
        private final AttemptRecorder recorder;
        private final InstantSource clock;
        private final EgressRoutes egress;
        private final ConnectionGates gates;
        private final AdmissionPolicy admissionPolicy;
        private final Duration attemptTimeout;
        private Function<String, Map<String, Object>> jsonObjectParser = json -> Map.of();
        private SessionRouting sessions = SessionRouting.NONE;
        private ClusterEvents events = ClusterEvents.NONE;
        private dev.sluice.runtime.oauth.TokenRenewal tokens = dev.sluice.runtime.oauth.TokenRenewal.NONE;

        private Builder(ConnectionSelector selector, ResilienceEngine engine, AttemptRecorder recorder, InstantSource clock,
                EgressRoutes egress, ConnectionGates gates, AdmissionPolicy admissionPolicy, Duration attemptTimeout) {
            this.attemptTimeout = attemptTimeout;
            this.selector = selector;
            this.engine = engine;
            this.recorder = recorder;
            this.clock = clock;
            this.egress = egress;
            this.gates = gates;
            this.admissionPolicy = admissionPolicy;
        }

        /**
         * @param parser parses a connection's providerSpecificData JSON into plain Java values; default: none read
         * @return this
         */
        public Builder jsonObjectParser(Function<String, Map<String, Object>> parser) {
            this.jsonObjectParser = parser;
            return this;
        }

        /**
         * @param routing session pins (moved on success, evicted on failover) and the lease fence (SPEC §10)
         * @return this
         */
        public Builder sessions(SessionRouting routing) {
            this.sessions = routing;
            return this;
        }

        /**
         * @param announced where queue pauses and learned pacing are announced to the other instances (NF-6)
         * @return this
         */
        public Builder events(ClusterEvents announced) {
            this.events = announced;
            return this;
        }

        /**
         * @param renewal renews a connection's OAuth token when it is due, and after a {@code 401} (issue 36)
         * @return this
         */
        public Builder tokens(dev.sluice.runtime.oauth.TokenRenewal renewal) {
            this.tokens = renewal;
            return this;
        }

        /** @return the dispatcher */
        public Dispatcher build() {
            return new Dispatcher(this);
        }
    }

    /**
     * Dispatches a request to one route's connections.
     *
     * @param route the resolved model
     * @param caller the caller
     * @param requestId the request id
     * @param call what each attempt sends
     * @param earlyEofRetries re-attempts on the same connection after a stream's early EOF (ST-0)
     * @return how it ended; a {@link Outcome.Served} holds its lease until closed
     */
    Outcome dispatch(Route route, Caller caller, String requestId, AttemptCall call, int earlyEofRetries) {
        return dispatch(route, caller, requestId, AttemptTally.NONE, call, earlyEofRetries, 0, null);
    }

    /**
     * Dispatches a request to those of a route's connections that can serve it at all.
     *
     * @param route the resolved model
     * @param caller the caller
     * @param requestId the request id
     * @param tally counts each attempt row recorded for the request (issue 35 §4)
     * @param call what each attempt sends
     * @param earlyEofRetries re-attempts on the same connection after a stream's early EOF (ST-0)
     * @param readinessMs a streamed request's readiness bound, counted from each attempt's start (issue 32); 0 otherwise
     * @param serves which connections can serve the request (null: every one); when no enabled
     *     connection the caller may use is left, the outcome is {@link Outcome.Unroutable.Why#UNTRANSLATABLE}
     * @return how it ended; a {@link Outcome.Served} holds its lease until closed
     */
    Outcome dispatch(Route route, Caller caller, String requestId, AttemptTally tally, AttemptCall call, int earlyEofRetries,
            long readinessMs, java.util.function.BiPredicate<Route, dev.sluice.api.UpstreamTarget> serves) {
        ConnectionAdmission.Walk walk = admission.open(route, caller, requestId);
        if (serves != null) {
            walk.cursor().only(c -> serves.test(route, runner.target(route, c)));
        }
        Outcome.Failed last = null;
        Outcome.Refused refused = null;
        int attempts = 0;
        ConnectionAdmission.Step step;
        while ((step = walk.next()) != null) {
            switch (step) {
                case ConnectionAdmission.Refusal r -> {
                    refused = new Outcome.Refused(route, r.refusal(), r.retryAfterMs(), r.connection(), null);
                    if (refused.clientGone()) {
                        return refused;
                    }
                }
                case ConnectionAdmission.Granted granted -> {
                    attempts++;
                    Lease lease = granted.lease();
                    boolean handedOn = false;
                    try {
                        Outcome outcome = attempt(route, caller, requestId, tally, call, walk, granted, attempts, earlyEofRetries,
                                readinessMs);
                        if (outcome instanceof Outcome.Served served) {
                            handedOn = true;
                            return served;
                        }
                        if (!(outcome instanceof Outcome.Failed failed)) {
                            return outcome;
                        }
                        // the walk goes on unless the failure path ended it
                        last = failed;
                    } finally {
                        if (!handedOn) {
                            // a failure's permit comes back only now: whoever waited for it sees the failure's cooldown or lock
                            lease.close();
                        }
                    }
                }
            }
        }
        if (last != null) {
            return last;
        }
        if (refused != null) {
            return refused;
        }
        if (serves != null && walk.cursor().eligible() == 0) {
            // issue 32: no connection that could serve the request was there, not even one held back
            return new Outcome.Unroutable(route.requested(), Outcome.Unroutable.Why.UNTRANSLATABLE, null);
        }
        long soonest = walk.cursor().soonestTimerMs();
        return soonest < 0 ? new Outcome.NoConnection(route, walk.cursor().excluded(), null)
                : new Outcome.CoolingDown(route, soonest, walk.cursor().excluded(), null);
    }

    /**
     * Runs one admitted attempt and settles it with the resilience mechanisms: a success is the
     * served outcome; a failure is the failed one, and when the failure path allows no fallback
     * the walk is {@linkplain ConnectionAdmission.Walk#end ended}.
     */
    private Outcome attempt(Route route, Caller caller, String requestId, AttemptTally tally, AttemptCall call,
            ConnectionAdmission.Walk walk, ConnectionAdmission.Granted granted, int attempts, int earlyEofRetries, long readinessMs) {
        Lease lease = granted.lease();
        Candidate candidate = lease.candidate();
        Connection c = candidate.connection();
        if (caller.affinity().managed() && !sessions.fenceHolds(caller.affinity(), caller.keyId(), c.id())) {
            // SL-3: the final dispatch fence; the lease moved, ended or was never this key's: nothing is sent upstream
            return new Outcome.Unroutable(route.requested(), Outcome.Unroutable.Why.LEASE_FENCE_STALE, null);
        }
        EgressRoute way = EgressRoute.of(c.localAddress(), c.proxyUrl());
        long startedAt;
        long latencyMs;
        String egressIp;
        Attempt attempt;
        // issue 36: after a 401 the OAuth token is renewed once and the attempt sent once more with it
        Connection renewed = null;
        for (int eof = 0;; eof++) {
            startedAt = clock.millis();
            long t0 = System.nanoTime();
            attempt = runner.run(lease, route, call, way, caller.client(), readinessMs, renewed);
            latencyMs = (System.nanoTime() - t0) / 1_000_000;
            String ip = runner.egressIp(way);
            egressIp = ip;
            bookkeeping(() -> engine.recordEgress(candidate, ip, way.isDirect()));
            Connection next = renewed == null ? runner.renewedAfter(attempt, lease) : null;
            if (next != null) {
                renewed = next;
                eof--;
                LOG.log(System.Logger.Level.INFO, "request " + requestId + ": connection " + c.id()
                        + " refused its OAuth access token (401); renewed it, sending once more");
                record(new ProxyLogRow(startedAt, requestId, route.provider().id(), c.id(), route.upstreamModel(), 401, latencyMs,
                        "oauth_token_renewed", egressIp), tally);
                continue;
            }
            if (!(attempt instanceof Attempt.Failed f && f.failure() instanceof AttemptFailure.EarlyEof) || eof >= earlyEofRetries) {
                break;
            }
            // ST-0: an upstream that said 200 and ended before anything useful gets another go on the same account
            admission.streams().endedEarly();
            LOG.log(System.Logger.Level.INFO, "request " + requestId + ": the stream of connection " + c.id()
                    + " ended before its first useful event; re-attempting on the same connection");
            record(new ProxyLogRow(startedAt, requestId, route.provider().id(), c.id(), route.upstreamModel(), 200, latencyMs,
                    "stream_early_eof", egressIp), tally);
        }
        walk.cursor().attempted();
        switch (attempt) {
            case Reply reply -> {
                settlement.served(candidate, reply.head(), granted.limits());
                lease.breakerSettled();
                String provider = route.provider().id();
                bookkeeping(() -> sessions.served(caller.affinity().sessionKey(), provider, c.id()));
                record(new ProxyLogRow(startedAt, requestId, route.provider().id(), c.id(), route.upstreamModel(),
                        reply.head() == null ? 200 : reply.head().status(), latencyMs, null, egressIp), tally);
                return new Outcome.Served(route, c, reply, lease);
            }
            case Attempt.Failed failed -> {
                count(failed.failure());
                FailureDecision d = settlement.failed(new FailedAttempt(candidate, lease.admission(), route.requested(),
                        granted.limits(), way.isDirect(), failed.failure()));
                lease.breakerSettled();
                if (d.tryNext()) {
                    // SA-1: a fallback verdict evicts the connection's pins; the session is pinned where it is served next
                    bookkeeping(() -> sessions.failedOver(c.id()));
                } else {
                    walk.end();
                }
                // issue 33: the row keeps the cooldown or lockout this attempt caused, not what holds the connection later
                record(new ProxyLogRow(startedAt, requestId, route.provider().id(), c.id(), route.upstreamModel(),
                        d.failure() instanceof AttemptFailure.Upstream u && u.failure() instanceof UpstreamError e ? e.status() : 0,
                        latencyMs, d.verdict().reason().wireName(), egressIp, effect(candidate)), tally);
                return new Outcome.Failed(route, d.failure(), d.verdict(), c, attempts, d.clientRetryAfterMs(), null);
            }
        }
    }

    /** @return how streams ended, by reason (SPEC §15) */
    public StreamCounters streams() {
        return admission.streams();
    }

    /** @return leases handed out and not yet closed (every admission is closed exactly once) */
    public int openLeases() {
        return admission.openLeases();
    }

    /** Stops the execution watchdog's thread (server shutdown). */
    @Override
    public void close() {
        watchdog.close();
    }

    private void count(AttemptFailure failure) {
        if (failure instanceof AttemptFailure.EarlyEof) {
            admission.streams().endedEarly();
        } else if (failure instanceof AttemptFailure.GatewayTimer t && t.timer() == AttemptFailure.Timer.STREAM_READINESS) {
            admission.streams().readinessTimedOut();
        }
    }

    private static void bookkeeping(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "resilience bookkeeping failed: " + e);
        }
    }

    private ProxyLogRow.Effect effect(Candidate candidate) {
        try {
            return effects.of(candidate, clock.millis());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "reading what an attempt caused failed: " + e);
            return null;
        }
    }

    /** Records an attempt's row, and counts it for its request (where telemetry reads the request's attempts). */
    private void record(ProxyLogRow row, AttemptTally tally) {
        tally.attempted();
        try {
            recorder.record(row);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "attempt log write failed: " + e);
        }
    }
}
