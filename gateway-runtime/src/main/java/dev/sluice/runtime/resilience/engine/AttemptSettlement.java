package dev.sluice.runtime.resilience.engine;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.LearnedRateLimits;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Secrets;
import java.time.InstantSource;

/**
 * Settles an attempt's outcome with every resilience mechanism. The failure path is one call: restate the status (§16.1) → classify (§5) →
 * pace or pause the connection's queue for a body-declared retry (RQ-4) → the engine's
 * bookkeeping (breaker, window gate, cooldowns, lockouts) → whether to try the next connection.
 * Routing calls {@link #failed} and acts on the decision, or {@link #served}; it applies no
 * resilience policy itself.
 *
 * <p>Bookkeeping is best effort: a store failure while recording an outcome must not turn an
 * answered request into a 500, nor stop the walk to the next connection.
 */
public final class AttemptSettlement {

    private static final System.Logger LOG = System.getLogger(AttemptSettlement.class.getName());

    private final ResilienceEngine engine;
    private final ConnectionGates gates;
    private final AdmissionPolicy policy;
    private final InstantSource clock;
    private final ClusterEvents events;

    /**
     * Creates the failure path.
     *
     * @param engine the resilience engine
     * @param gates the connections' queues (RQ-4 pauses them)
     * @param policy what limits a request on a connection (which providers limit per model)
     * @param clock the clock
     * @param events where pauses and learned pacing are announced to the other instances (NF-6)
     */
    public AttemptSettlement(ResilienceEngine engine, ConnectionGates gates, AdmissionPolicy policy, InstantSource clock,
            ClusterEvents events) {
        this.engine = engine;
        this.gates = gates;
        this.policy = policy;
        this.clock = clock;
        this.events = java.util.Objects.requireNonNull(events, "events is null");
    }

    /**
     * Decides what a failed attempt means and records it with every mechanism it concerns. The
     * attempt's breaker admission is settled here; the caller returns the connection's permit only
     * afterwards, so whoever waited for it meets this failure's pause, cooldown or lock.
     *
     * @param attempt the failed attempt
     * @return the decision
     */
    public FailureDecision failed(FailedAttempt attempt) {
        Candidate candidate = attempt.candidate();
        AttemptFailure failure = attempt.failure();
        Long clientRetryAfterMs = null;
        if (failure instanceof AttemptFailure.Upstream u) {
            // §16.1: a misreported status is restated before anything classifies it
            StatusRestatement.Result restated = engine.restate(candidate, u.failure(), clock.millis());
            failure = new AttemptFailure.Upstream(restated.failure());
            clientRetryAfterMs = restated.clientRetryAfterMs();
        }
        Verdict classified = engine.classify(candidate, failure);
        // a dead proxy or an unusable local address is this connection's problem, not the upstream
        // host's: cool the connection, never count for the breaker
        Verdict verdict = !attempt.directRoute() && failure instanceof AttemptFailure.Upstream u && u.failure() instanceof TransportError
                ? classified.asConnectionFailure() : classified;
        boolean tryNext = verdict.fallback();
        try {
            // RQ-4: a pause the queue waits out, or a long RetryInfo's model lock, takes the failure: no cooldown besides
            Verdict forEngine = pace(attempt, verdict) ? verdict.asHandledElsewhere() : verdict;
            Connection c = candidate.connection();
            UpstreamError upstream = failure instanceof AttemptFailure.Upstream u && u.failure() instanceof UpstreamError e ? e : null;
            tryNext = engine.afterFailure(candidate, attempt.admission(), forEngine, Secrets.scrub(failure.describe(), c),
                    upstream == null ? null : upstream.errorCode()) == ResilienceEngine.Decision.TRY_NEXT;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "resilience bookkeeping failed: " + e);
        }
        return new FailureDecision(failure, verdict, clientRetryAfterMs, tryNext);
    }

    /**
     * A served attempt: the engine's success bookkeeping (breaker, cooldown, lockout decay, window
     * gate, announced quotas) and, on a connection the request queue protects, the pacing an
     * announced request window running low asks for (RQ-10).
     *
     * @param candidate the connection that served
     * @param head the answer's head, or null
     * @param limits the connection's admission limits for the request
     */
    public void served(Candidate candidate, ResponseHead head, ConnectionGates.Limits limits) {
        bookkeeping(() -> engine.afterSuccess(candidate, head));
        if (limits.protectedQueue() && head != null) {
            bookkeeping(() -> LearnedRateLimits.apply(gates, events, candidate.connection().id(), head, clock.millis()));
        }
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
    private boolean pace(FailedAttempt attempt, Verdict verdict) {
        Long hint = verdict.retryAfterMs();
        ConnectionGates.Limits limits = attempt.limits();
        if (verdict.status() != 429 || hint == null || hint <= 0 || !limits.protectedQueue() || verdict.hintSource() == null
                || verdict.hintSource() == Verdict.HintSource.HEADER) {
            return false;
        }
        Candidate candidate = attempt.candidate();
        Connection c = candidate.connection();
        boolean perModel = policy.modelScoped(c.provider());
        if (hint > limits.maxWaitMs() && perModel && verdict.hintSource() == Verdict.HintSource.GOOGLE_RPC_RETRY_INFO) {
            engine.lockForRetryInfo(candidate, candidate.model(), verdict.reason(), hint);
            String requested = attempt.requestedModel();
            String asked = requested.startsWith(c.provider() + "/") ? requested.substring(c.provider().length() + 1) : requested;
            if (!asked.equalsIgnoreCase(candidate.model())) {
                engine.lockForRetryInfo(candidate, asked, verdict.reason(), hint);
            }
            return true;
        }
        long pause = Math.min(hint, ModelLockouts.RETRY_INFO_MAX_MS);
        long until = clock.millis() + pause;
        if (perModel) {
            gates.pause(c.id(), candidate.model(), until);
        } else {
            gates.pause(c.id(), until);
        }
        // NF-6: the same connection's queue on every other instance waits too
        events.publish(new ClusterEvent.Paused(c.id(), perModel ? candidate.model() : null, pause));
        // within the queue time the queue waits it out (no cooldown besides); a longer pause is also a cooldown
        return hint <= limits.maxWaitMs();
    }

    private static void bookkeeping(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "resilience bookkeeping failed: " + e);
        }
    }
}
