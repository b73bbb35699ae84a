package dev.sluice.runtime.routing;

import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.AdmissionPolicy;
import dev.sluice.runtime.resilience.CircuitBreakers;
import dev.sluice.runtime.resilience.ConnectionGates;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.LearnedRateLimits;
import dev.sluice.runtime.resilience.ModelLockouts;
import dev.sluice.runtime.resilience.ResilienceEngine;
import dev.sluice.runtime.resilience.StatusRestatement;
import dev.sluice.runtime.resilience.Verdict;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.runtime.store.Secrets;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.runtime.upstream.EgressRoutes;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The attempt loop: walks the request's candidates in order; each attempt passes the breaker's
 * admission, and after each failure the verdict goes to the resilience engine, which updates the
 * mechanisms and decides whether to try the next connection (failure → verdict → decision). Every
 * attempt is recorded (one {@code proxy_logs} row each).
 */
public final class Dispatcher implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    private final ConnectionSelector selector;
    private final ResilienceEngine engine;
    private final AttemptRecorder recorder;
    private final InstantSource clock;
    private final Function<String, Map<String, Object>> jsonObjectParser;
    private final EgressRoutes egress;
    private final ConnectionGates gates;
    private final AdmissionPolicy admissionPolicy;
    private final long attemptTimeoutMs;
    private final AttemptWatchdog watchdog = new AttemptWatchdog();

    /** RQ-2: the code of an attempt stopped by its execution bound. */
    static final String EXECUTION_TIMEOUT = "RATE_LIMIT_EXECUTION_TIMEOUT";

    /**
     * Creates the dispatcher.
     *
     * @param selector connection selection
     * @param engine the resilience engine
     * @param recorder attempt log
     * @param clock the clock
     * @param jsonObjectParser parses a connection's providerSpecificData JSON into plain Java values
     * @param egress the outbound routes: each attempt leaves through its connection's
     *     {@code localAddress} / {@code proxyUrl} (§16.3)
     * @param gates the caps and request queue in front of each connection (§12, §14)
     * @param admissionPolicy what limits a request on a connection
     * @param attemptTimeout the executors' own start timeout (the least execution bound, RQ-2)
     */
    public Dispatcher(ConnectionSelector selector, ResilienceEngine engine, AttemptRecorder recorder, InstantSource clock,
            Function<String, Map<String, Object>> jsonObjectParser, EgressRoutes egress, ConnectionGates gates,
            AdmissionPolicy admissionPolicy, java.time.Duration attemptTimeout) {
        this.attemptTimeoutMs = attemptTimeout.toMillis();
        this.gates = gates;
        this.admissionPolicy = admissionPolicy;
        this.selector = selector;
        this.engine = engine;
        this.recorder = recorder;
        this.clock = clock;
        this.jsonObjectParser = jsonObjectParser;
        this.egress = egress;
    }

    /**
     * Dispatches a request.
     *
     * @param route the resolved model
     * @param caller the caller
     * @param requestId the request id
     * @param attempt sends one attempt to a target
     * @param <T> the success value
     * @return how it ended
     */
    public <T> DispatchResult<T> dispatch(Route route, Caller caller, String requestId, Function<UpstreamTarget, AttemptResult<T>> attempt) {
        ConnectionSelector.Cursor cursor = selector.open(route, caller);
        DispatchResult.Failed<T> last = null;
        DispatchResult.Throttled<T> throttled = null;
        int attempts = 0;
        // §12: a connection whose cap is full is passed over while another may start at once; only
        // when every one is full does the request wait — at the first of them, in walk order
        List<Candidate> full = new ArrayList<>(0);
        boolean waited = false;
        Candidate candidate;
        while (true) {
            boolean fromFull = false;
            candidate = cursor.next();
            if (candidate == null) {
                if (full.isEmpty()) {
                    break;
                }
                candidate = full.removeFirst();
                fromFull = true;
            }
            Connection gated = candidate.connection();
            // §12, §14: the connection's caps and queue; a refusal sends nothing and tries the next connection
            ConnectionGates.Limits limits = admissionPolicy.limits(gated, route.upstreamModel(), caller.quotaShare());
            // QC-3: a quota-share combo's request takes its turn on the account, but is never refused for want of one
            boolean failOpen = caller.quotaShare() && limits.connectionCap() > 0;
            boolean waits = fromFull && !waited;
            CircuitBreakers.Admission admission = null;
            if (!waits) {
                // no waiting: the breaker first, as everywhere (a probe claimed here is used at once)
                admission = engine.acquire(candidate);
                if (!admission.admitted()) {
                    cursor.refusedByBreaker(candidate);
                    continue;
                }
            }
            ConnectionGates.Entry entry;
            try {
                if (!waits) {
                    entry = gates.tryEnter(gated.id(), route.upstreamModel(), limits);
                } else {
                    waited = true;
                    entry = gates.enter(gated.id(), route.upstreamModel(), limits,
                            caller.client() == ClientLiveness.ALWAYS ? null : caller.client()::connected);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (admission != null) {
                    engine.release(candidate, admission);
                }
                return new DispatchResult.Throttled<>(ConnectionGates.Refusal.CLIENT_DISCONNECTED, 0, gated);
            }
            if (entry == null) {
                // full now: another connection may start at once; come back to wait here if none can
                if (admission != null) {
                    engine.release(candidate, admission);
                }
                if (!fromFull) {
                    full.add(candidate);
                }
                continue;
            }
            if (entry instanceof ConnectionGates.Refused refused && failOpen
                    && refused.refusal() != ConnectionGates.Refusal.CLIENT_DISCONNECTED) {
                // QC-3 fails open past the connection's cap only: a model cap, a pause or pacing still hold
                ConnectionGates.Permit open = gates.failOpen(gated.id(), route.upstreamModel(), limits);
                if (open != null) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "quota-share request " + requestId + " goes ahead on connection " + gated.id()
                            + " without a turn (" + refused.refusal() + ")");
                    entry = open;
                }
            }
            if (entry instanceof ConnectionGates.Refused refused) {
                if (admission != null) {
                    engine.release(candidate, admission);
                }
                throttled = new DispatchResult.Throttled<>(refused.refusal(), refused.retryAfterMs(), gated);
                if (refused.refusal() == ConnectionGates.Refusal.CLIENT_DISCONNECTED) {
                    return throttled;
                }
                continue;
            }
            if (waits) {
                // the request waited in the queue: the connection may have been cooled, locked or opened meanwhile
                Candidate current = cursor.refreshed(candidate);
                if (current == null) {
                    ((ConnectionGates.Permit) entry).release();
                    continue;
                }
                candidate = current;
                Exclusion heldNow = engine.exclusion(candidate, clock.millis());
                if (heldNow != null) {
                    ((ConnectionGates.Permit) entry).release();
                    cursor.heldBack(candidate, heldNow);
                    continue;
                }
                admission = engine.acquire(candidate);
                if (!admission.admitted()) {
                    ((ConnectionGates.Permit) entry).release();
                    cursor.refusedByBreaker(candidate);
                    continue;
                }
            }
            Candidate tried = candidate;
            Connection c = candidate.connection();
            CircuitBreakers.Admission admitted = admission;
            ConnectionGates.Permit permit = (ConnectionGates.Permit) entry;
            boolean permitPassedOn = false;
            attempts++;
            boolean settled = false;
            try {
                long startedAt = clock.millis();
                long t0 = System.nanoTime();
                AttemptResult<T> result;
                EgressRoute way = EgressRoute.of(c.localAddress(), c.proxyUrl());
                // RQ-2: the attempt may run executionMaxWaitMs (at least the executor's own start timeout)
                AttemptWatchdog.Watch watch = watchdog.watch(admissionPolicy.executionMaxWaitMs(c, attemptTimeoutMs));
                boolean overran;
                try {
                    result = egress.with(way, () -> attempt.apply(target(route, c)));
                } catch (RuntimeException | StackOverflowError | LinkageError e) {
                    // an executor (or a plugin's) bug or an unreadable answer is this attempt's failure, not a 500
                    result = new AttemptResult.Failed<>(new TransportError(TransportErrorKind.PROTOCOL,
                            e.getClass().getSimpleName() + ": " + e.getMessage()));
                } finally {
                    overran = watch.finish();
                }
                if (overran && result instanceof AttemptResult.Failed<T>) {
                    // whatever the interrupted attempt made of it, it was stopped for running too long
                    result = new AttemptResult.Failed<>(new TransportError(TransportErrorKind.TIMEOUT,
                            "the attempt ran longer than requestQueue.executionMaxWaitMs (" + watch.boundMs() + " ms) and was stopped"));
                }
                long latencyMs = (System.nanoTime() - t0) / 1_000_000;
                cursor.attempted();
                String egressIp = egress.egressIp(way);
                engine.recordEgress(tried, egressIp, way.isDirect());
                switch (result) {
                    case AttemptResult.Ok<T> ok -> {
                        settled = true;
                        bookkeeping(() -> engine.afterSuccess(tried, ok.head()));
                        if (limits.protectedQueue()) {
                            // RQ-10: an announced window running low paces the connection until its reset
                            bookkeeping(() -> LearnedRateLimits.apply(gates, c.id(), ok.head(), clock.millis()));
                        }
                        record(new ProxyLogRow(startedAt, requestId, route.provider().id(), c.id(), route.upstreamModel(),
                                ok.status(), latencyMs, null, egressIp));
                        // the permit is held until the answer is written (a stream to its end)
                        permitPassedOn = true;
                        return new DispatchResult.Served<>(ok.value(), c, permit::release);
                    }
                    case AttemptResult.Failed<T> failed -> {
                        // §16.1: a misreported status is restated before anything classifies it
                        StatusRestatement.Result restated = engine.restate(candidate, failed.failure(), clock.millis());
                        UpstreamFailure failure = restated.failure();
                        Verdict classified = engine.classify(candidate, failure);
                        // a dead proxy or an unusable local address is this connection's problem, not
                        // the upstream host's: cool the connection, never count for the breaker
                        Verdict verdict = !way.isDirect() && failure instanceof TransportError ? classified.asConnectionFailure() : classified;
                        // RQ-4: a pause the queue waits out, or a long RetryInfo's model lock, takes the failure: no
                        // cooldown (set before the permit is returned, so the next in line meets the pause, not the 429)
                        Verdict forEngine = pace(route, tried, limits, verdict) ? verdict.asHandledElsewhere() : verdict;
                        UpstreamError upstream = failure instanceof UpstreamError e ? e : null;
                        record(new ProxyLogRow(startedAt, requestId, route.provider().id(), c.id(), route.upstreamModel(),
                                upstream == null ? 0 : upstream.status(), latencyMs, verdict.reason().wireName(), egressIp));
                        last = new DispatchResult.Failed<>(failure, verdict, c, attempts, restated.clientRetryAfterMs(),
                                overran ? EXECUTION_TIMEOUT : null);
                        settled = true;
                        ResilienceEngine.Decision[] decision = {verdict.fallback() ? ResilienceEngine.Decision.TRY_NEXT
                                : ResilienceEngine.Decision.GIVE_UP};
                        bookkeeping(() -> decision[0] = engine.afterFailure(tried, admitted, forEngine,
                                Secrets.scrub(failure.describe(), c), upstream == null ? null : upstream.errorCode()));
                        // the permit comes back only now: whoever waited for it sees this failure's cooldown or lock
                        permit.release();
                        if (decision[0] == ResilienceEngine.Decision.GIVE_UP) {
                            return last;
                        }
                    }
                }
            } finally {
                if (!permitPassedOn) {
                    permit.release();
                }
                if (!settled) {
                    // whatever escaped, a claimed half-open probe must not stay claimed
                    engine.release(candidate, admitted);
                }
            }
        }
        if (last != null) {
            return last;
        }
        if (throttled != null) {
            return throttled;
        }
        long soonest = cursor.soonestTimerMs();
        return soonest < 0 ? new DispatchResult.NoConnection<>(cursor.excluded()) : new DispatchResult.CoolingDown<>(soonest, cursor.excluded());
    }

    /** Stops the execution watchdog's thread (server shutdown). */
    @Override
    public void close() {
        watchdog.close();
    }

    /**
     * RQ-4, body-declared retries on a protected connection: a 429 whose body says how long to wait
     * pauses the queue for that long (the model's share of it where the provider's limits are per
     * model), so queued requests go out after it instead of meeting the same 429; callers whose
     * queue time ends first are refused at once. A structured Google {@code RetryInfo} too long for
     * the queue time, on a provider with per-model limits, is not a pause but a model lock on this
     * connection (the upstream model and the name the client asked for), and the queue goes on.
     *
     * @return true when the queue or a model lock took the failure (the engine must not also cool the connection)
     */
    private boolean pace(Route route, Candidate candidate, ConnectionGates.Limits limits, Verdict verdict) {
        Long hint = verdict.retryAfterMs();
        if (verdict.status() != 429 || hint == null || hint <= 0 || !limits.protectedQueue() || verdict.hintSource() == null
                || verdict.hintSource() == Verdict.HintSource.HEADER) {
            return false;
        }
        Connection c = candidate.connection();
        boolean perModel = admissionPolicy.modelScoped(c.provider());
        if (hint > limits.maxWaitMs() && perModel && verdict.hintSource() == Verdict.HintSource.GOOGLE_RPC_RETRY_INFO) {
            engine.lockForRetryInfo(candidate, route.upstreamModel(), verdict.reason(), hint);
            String asked = route.requested().startsWith(c.provider() + "/") ? route.requested().substring(c.provider().length() + 1)
                    : route.requested();
            if (!asked.equalsIgnoreCase(route.upstreamModel())) {
                engine.lockForRetryInfo(candidate, asked, verdict.reason(), hint);
            }
            return true;
        }
        long until = clock.millis() + Math.min(hint, ModelLockouts.RETRY_INFO_MAX_MS);
        if (perModel) {
            gates.pause(c.id(), route.upstreamModel(), until);
        } else {
            gates.pause(c.id(), until);
        }
        // within the queue time the queue waits it out (no cooldown besides); a longer pause is also a cooldown
        return hint <= limits.maxWaitMs();
    }

    /**
     * Resilience bookkeeping is best effort: a store failure while recording an outcome must not
     * turn an answered request into a 500, nor stop the walk to the next connection.
     */
    private static void bookkeeping(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "resilience bookkeeping failed: " + e);
        }
    }

    private void record(ProxyLogRow row) {
        try {
            recorder.record(row);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "attempt log write failed: " + e);
        }
    }

    private UpstreamTarget target(Route route, Connection c) {
        String base = c.baseUrl() != null ? c.baseUrl() : route.provider().descriptor().defaultBaseUrl();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        // the credential of the connection's class only (DM-2): an oauth connection never sends a stale API key
        boolean oauth = c.authType() == ProviderClass.OAUTH && c.oauth() != null;
        Credentials creds = new Credentials(oauth ? null : c.apiKey(), oauth ? c.oauth().accessToken() : null,
                oauth ? c.oauth().refreshToken() : null, oauth ? c.oauth().expiresAt() : null);
        Map<String, Object> psd = c.providerSpecificDataJson() == null ? Map.of() : jsonObjectParser.apply(c.providerSpecificDataJson());
        return new UpstreamTarget(c.id(), c.provider(), c.authType(), base, creds, psd);
    }
}
