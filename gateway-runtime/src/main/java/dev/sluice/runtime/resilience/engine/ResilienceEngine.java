package dev.sluice.runtime.resilience.engine;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.EgressLocks;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.resilience.lockout.LockoutFailure;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.store.Connection;
import java.util.function.Supplier;

/**
 * The resilience layer as the attempt loop sees it: which connections may serve (and which
 * mechanism holds the others back), the breaker's admission of each attempt, and what a failure or
 * success does to each mechanism. The mechanisms stay separate (SPEC §5–§11); this class only
 * routes a verdict to the ones it concerns:
 *
 * <ul>
 *   <li>provider circuit breaker (§6): failures with {@link Verdict#countsForBreaker()};</li>
 *   <li>provider cooldown window gate (§7, off by default): upstream failures that fall back;</li>
 *   <li>model lockout (§11, off by default): {@code model}/{@code exact}-scoped failures whose
 *       status is in {@code modelLockout.errorCodes};</li>
 *   <li>connection cooldown (§8): {@code connection}-scoped failures, and rate or quota 429s that
 *       no model lockout took.</li>
 * </ul>
 * Request-scoped failures (BO-7) touch nothing.
 */
public final class ResilienceEngine {

    private final FailureClassifier classifier;
    private final Supplier<ResilienceSettings> settings;
    private final CircuitBreakers breakers;
    private final ConnectionCooldowns cooldowns;
    private final ModelLockouts lockouts;
    private final ProviderCooldowns providerCooldowns;
    private final QuotaFamilies families;
    private final StatusRestatement restatement;
    private final EgressLocks egressLocks;
    private final QuotaObservations quotas;

    /**
     * Creates the engine.
     *
     * @param classifier the failure classifier
     * @param settings the live settings
     * @param breakers provider circuit breakers
     * @param cooldowns connection cooldowns
     * @param lockouts model lockouts
     * @param providerCooldowns the provider cooldown window gate
     * @param families quota families
     * @param restatement status restatement rules (§16.1)
     * @param egressLocks egress-bucketed locks (§16.3), or null for none
     * @param quotas the quotas upstreams announce (OF-4), or null to ignore them
     */
    public ResilienceEngine(FailureClassifier classifier, Supplier<ResilienceSettings> settings, CircuitBreakers breakers,
            ConnectionCooldowns cooldowns, ModelLockouts lockouts, ProviderCooldowns providerCooldowns, QuotaFamilies families,
            StatusRestatement restatement, EgressLocks egressLocks, QuotaObservations quotas) {
        this.quotas = quotas;
        this.classifier = classifier;
        this.settings = settings;
        this.breakers = breakers;
        this.cooldowns = cooldowns;
        this.lockouts = lockouts;
        this.providerCooldowns = providerCooldowns;
        this.families = families;
        this.restatement = restatement;
        this.egressLocks = egressLocks;
    }

    /** What the attempt loop does after a failure. */
    public enum Decision {
        /** Try the next candidate connection. */
        TRY_NEXT,
        /** Stop and answer the client with this failure. */
        GIVE_UP
    }

    /**
     * The quota family of a model.
     *
     * @param provider the provider id
     * @param model the upstream model
     * @return the family, or null
     */
    public String familyOf(String provider, String model) {
        return families.familyOf(provider, model);
    }

    /**
     * The provider-level hold of the window gate (§7), checked once per request.
     *
     * @param provider the provider id
     * @param providerClass the provider's class
     * @return the exclusion, or null
     */
    public Exclusion providerExclusion(String provider, dev.sluice.api.ProviderClass providerClass) {
        long ms = providerCooldowns.providerRemainingMs(provider, providerClass);
        return ms > 0 ? new Exclusion(Exclusion.Reason.PROVIDER_COOLDOWN, ms) : null;
    }

    /**
     * The lockouts of one request's model, read once per request (NF-3).
     *
     * @param provider the provider id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the query
     */
    public ModelLockouts.Query lockoutQuery(String provider, String model, String family) {
        return lockouts.query(provider, model, family);
    }

    /**
     * Why a candidate may not serve now, or null when it may. Claims nothing. Convenience over
     * {@link #held} for one-off checks.
     *
     * @param c the candidate
     * @param now the current time, epoch ms
     * @return the exclusion, or null
     */
    public Exclusion exclusion(Candidate c, long now) {
        Hold hold = new Hold();
        return held(c.provider(), c.providerClass(), c.connection(), c.breakerKey(), lockoutQuery(c.provider(), c.model(), c.family()),
                now, hold) ? new Exclusion(hold.reason(), hold.remainingMs(), hold.cause()) : null;
    }

    /**
     * Whether a connection is held back from serving the request's model now, and by which
     * mechanism (written to {@code out}). Claims nothing and allocates nothing: this runs once per
     * walked connection (NF-3).
     *
     * @param provider the provider id
     * @param providerClass the provider's class
     * @param conn the connection
     * @param breakerKey the breaker of its host
     * @param lockoutQuery the request's lockout query
     * @param now the current time, epoch ms
     * @param out receives the reason and the time left; also caches the last breaker answer
     * @return true when held back
     */
    public boolean held(String provider, dev.sluice.api.ProviderClass providerClass, Connection conn, BreakerKey breakerKey,
            ModelLockouts.Query lockoutQuery, long now, Hold out) {
        if (ConnectionCooldowns.isTerminal(conn.state().testStatus())) {
            return out.set(Exclusion.Reason.TERMINAL, 0);
        }
        Long until = conn.state().rateLimitedUntil();
        if (until != null && until > now) {
            return out.set(Exclusion.Reason.UNAVAILABLE, until - now, reasonOf(conn.state().lastErrorType()));
        }
        if (cooldowns.shared()) {
            // NF-6: another instance may have cooled it a moment ago; its durable state follows within a second
            long announced = cooldowns.announcedRemainingMs(conn.id());
            if (announced > 0) {
                return out.set(Exclusion.Reason.UNAVAILABLE, announced);
            }
        }
        long pc = providerCooldowns.connectionRemainingMs(provider, conn.id());
        if (pc > 0) {
            return out.set(Exclusion.Reason.PROVIDER_COOLDOWN, pc);
        }
        ModelLockout lock = lockoutQuery.blocking(conn.id(), now);
        if (lock != null) {
            return out.set(Exclusion.Reason.MODEL_LOCKOUT, Math.max(1, lock.expiresAt() - now), lock.reason());
        }
        // connections of one host share a breaker: ask it once per host and request
        if (breakerKey != out.lastBreaker) {
            out.lastBreaker = breakerKey;
            out.lastBreakerMs = breakers.canExecute(breakerKey, providerClass) ? 0
                    : Math.max(1, breakers.retryAfterMs(breakerKey, providerClass));
        }
        return out.lastBreakerMs > 0 && out.set(Exclusion.Reason.CIRCUIT_OPEN, out.lastBreakerMs);
    }

    /** A stored {@code lastErrorType} as a reason, or null. */
    private static FailureReason reasonOf(String wire) {
        if (wire == null) {
            return null;
        }
        for (FailureReason r : FailureReason.values()) {
            if (r.wireName().equals(wire)) {
                return r;
            }
        }
        return null;
    }

    /** A per-request scratch answer of {@link #held}: not thread-safe. */
    public static final class Hold {
        private Exclusion.Reason reason;
        private long remainingMs;
        private FailureReason cause;
        private BreakerKey lastBreaker;
        private long lastBreakerMs;

        boolean set(Exclusion.Reason r, long ms) {
            return set(r, ms, null);
        }

        boolean set(Exclusion.Reason r, long ms, FailureReason why) {
            reason = r;
            remainingMs = ms;
            cause = why;
            return true;
        }

        /** @return the failure behind the last hold, or null */
        public FailureReason cause() {
            return cause;
        }

        /** Forgets the cached breaker answer (after an attempt changed the breaker). */
        public void forgetBreaker() {
            lastBreaker = null;
        }

        /** @return the mechanism of the last hold */
        public Exclusion.Reason reason() {
            return reason;
        }

        /** @return the time left of the last hold, ms */
        public long remainingMs() {
            return remainingMs;
        }
    }

    /**
     * The breaker's admission of an attempt (claims the half-open probe when there is one). Keep
     * it for the attempt and hand it back with the outcome.
     *
     * @param c the candidate
     * @return the admission; {@link CircuitBreakers.Admission#admitted()} says whether the attempt may go upstream
     */
    public CircuitBreakers.Admission acquire(Candidate c) {
        return breakers.admit(c.breakerKey(), c.providerClass());
    }

    /**
     * Releases what {@link #acquire} claimed when the attempt ended without an outcome (an error
     * escaped the attempt loop).
     *
     * @param c the candidate
     * @param admission what {@link #acquire} gave the attempt
     */
    public void release(Candidate c, CircuitBreakers.Admission admission) {
        breakers.onNeutral(c.breakerKey(), admission);
    }

    /**
     * Remaining open time of a candidate's breaker.
     *
     * @param c the candidate
     * @return ms, at least 1
     */
    public long breakerRetryAfterMs(Candidate c) {
        return Math.max(1, breakers.retryAfterMs(c.breakerKey(), c.providerClass()));
    }

    /**
     * Restates a failure's status when a rule of its provider says so (SPEC §16.1): right after
     * the executor reported it and before anything classifies it.
     *
     * @param c the candidate that failed
     * @param failure the failure
     * @param nowMillis the current time
     * @return the failure the rest of the gateway sees, and the client's Retry-After
     */
    public StatusRestatement.Result restate(Candidate c, UpstreamFailure failure, long nowMillis) {
        return restatement.apply(c.provider(), failure, nowMillis);
    }

    /**
     * RQ-4: locks a model on the candidate's connection for a structured {@code RetryInfo} delay
     * too long to queue for (at most 24 h), whether or not model lockout is enabled.
     *
     * @param c the candidate
     * @param model the model name to lock
     * @param reason the failure's reason
     * @param delayMs the announced delay
     * @return the lockout in force
     */
    public ModelLockout lockForRetryInfo(Candidate c, String model, FailureReason reason, long delayMs) {
        return lockouts.lockForRetryInfo(c.provider(), c.connection().id(), model, reason, delayMs);
    }

    /**
     * Remembers the egress IP of an attempt (§16.3, EB-2).
     *
     * @param c the candidate
     * @param egressIp the attempt's egress IP, or null when unknown
     * @param direct whether the attempt left through the machine's default route (no local
     *     address, no proxy): such connections share one egress IP even when it is unknown
     */
    public void recordEgress(Candidate c, String egressIp, boolean direct) {
        if (egressLocks != null && egressLocks.providers().contains(c.provider())) {
            egressLocks.recordAttempt(c.connection().id(), egressIp != null ? egressIp : direct ? EgressLocks.DIRECT_ROUTE : null);
        }
    }

    /**
     * Classifies a failure (SPEC §5).
     *
     * @param c the candidate that failed
     * @param failure the failure
     * @return the verdict
     */
    public Verdict classify(Candidate c, UpstreamFailure failure) {
        return classifier.classify(c.provider(), c.connection().authType(), failure);
    }

    /**
     * Classifies an attempt's failure (SPEC §5; the gateway's own timers as BO-7 request-scoped).
     *
     * @param c the candidate that failed
     * @param failure the failure
     * @return the verdict
     */
    public Verdict classify(Candidate c, AttemptFailure failure) {
        return classifier.classify(c.provider(), c.connection().authType(), failure);
    }

    /**
     * Routes a failure's verdict to the mechanisms it concerns and decides what follows.
     *
     * @param c the candidate that failed
     * @param admission what {@link #acquire} gave the attempt
     * @param v the verdict
     * @param errorMessage the upstream error, secrets scrubbed, or null
     * @param errorCode the upstream error code, or null
     * @return the decision
     */
    public Decision afterFailure(Candidate c, CircuitBreakers.Admission admission, Verdict v, String errorMessage, String errorCode) {
        // a honoured provider-scoped rule (ER-3) is evidence about the provider, like a 5xx
        if (v.countsForBreaker() || (v.lockScope() == LockScope.PROVIDER && v.ruleScope() == LockScope.PROVIDER)) {
            breakers.onFailure(c.breakerKey(), c.providerClass(), c.connection().id(), v.reason().wireName());
        } else {
            // no evidence about the provider: a probe that got a 429 lets the next request probe
            breakers.onNeutral(c.breakerKey(), admission);
        }
        if (v.requestScoped()) {
            return v.fallback() ? Decision.TRY_NEXT : Decision.GIVE_UP;
        }
        if (v.countsForBreaker()) {
            // the window gate remembers providers that fail at the service level, like the breaker;
            // a walk over rate-limited keys is the keys' business (connection cooldown)
            providerCooldowns.recordFailure(c.provider(), c.providerClass(), c.connection().id());
        }
        // ER-3: a connection-scoped rule on a connection that may not cool falls back to the model lock
        boolean ruleOnUncoolable = v.ruleScope() == LockScope.CONNECTION && v.lockScope() == LockScope.CONNECTION
                && c.connection().disableCooling();
        // EB-3: an egress-bucketed family's 429 is the IP's, so the connection (never a model) cools
        boolean egress = egressLocks != null && !c.connection().disableCooling() && egressLocks.applies(c.provider(), v);
        LockScope lockScope = egress ? LockScope.CONNECTION : ruleOnUncoolable ? LockScope.MODEL : v.lockScope();
        ModelLockout locked = null;
        if (lockScope == LockScope.MODEL || lockScope == LockScope.EXACT) {
            // ER-4: a model-access rule's lock is stored as "forbidden"
            FailureReason lockReason = v.ruleScope() == LockScope.MODEL && v.reason() == FailureReason.AUTH_ERROR
                    ? FailureReason.FORBIDDEN : v.reason();
            locked = lockouts.recordFailure(LockoutFailure.builder(c.provider(), c.connection().id(), c.model())
                    .family(c.family()).scope(lockScope).failure(lockReason, v.status())
                    .hint(v.retryAfterMs(), v.hintSource() != null && v.hintSource().authoritative())
                    .declaredCooldownMs(v.cooldownMs()).build());
        }
        boolean accountWide = lockScope == LockScope.CONNECTION;
        // a rate or quota 429 that no model lockout took cools the account (lockout is off by default)
        boolean untakenLimit = locked == null && lockScope == LockScope.MODEL && !ruleOnUncoolable
                && (v.reason() == FailureReason.RATE_LIMIT_EXCEEDED || v.reason() == FailureReason.QUOTA_EXHAUSTED);
        // issue 32: a 503 is the service's (the breaker counted it); it cools the connection only when the operator says so
        boolean unavailable = locked == null && v.status() == 503 && v.reason() == FailureReason.SERVER_ERROR
                && settings.get().serviceUnavailableCooldown().enabled();
        if (accountWide || untakenLimit || unavailable) {
            cooldowns.onFailure(c.connection().id(), v, errorMessage, errorCode);
        }
        if (egress) {
            egressLocks.coolSiblings(c.connection(), v.reason());
        }
        return v.fallback() ? Decision.TRY_NEXT : Decision.GIVE_UP;
    }

    /**
     * A served attempt: the breaker counts a success, the connection's error fields clear (CC-7),
     * the model's lockout failure count decays (ML-3), the window gate clears (PC-2), and the
     * quota the answer announces is remembered (OF-4).
     *
     * @param c the candidate that served
     * @param head the answer's head, or null
     */
    public void afterSuccess(Candidate c, dev.sluice.api.upstream.ResponseHead head) {
        if (quotas != null && head != null) {
            quotas.record(c.connection().id(), head);
        }
        afterSuccess(c);
    }

    /**
     * A served attempt without a response head: see {@link #afterSuccess(Candidate, dev.sluice.api.upstream.ResponseHead)}.
     *
     * @param c the candidate that served
     */
    public void afterSuccess(Candidate c) {
        breakers.onSuccess(c.breakerKey(), c.providerClass(), c.connection().id());
        cooldowns.onSuccess(c.connection());
        lockouts.onSuccess(c.provider(), c.connection().id(), c.model(), c.family());
        providerCooldowns.recordSuccess(c.provider(), c.connection().id());
    }

    /**
     * A committed stream stalled (ST-1, CC-5): recorded on the connection; it cools only when
     * {@code streamStallCooldown.enabled}. Never counts for the breaker (the watchdog is the gateway's own).
     *
     * @param c the candidate whose stream stalled
     * @param message what happened
     */
    public void afterStreamStall(Candidate c, String message) {
        cooldowns.onStreamStall(c.connection().id(), message);
    }

    /**
     * The live settings.
     *
     * @return the settings
     */
    public ResilienceSettings settings() {
        return settings.get();
    }
}
