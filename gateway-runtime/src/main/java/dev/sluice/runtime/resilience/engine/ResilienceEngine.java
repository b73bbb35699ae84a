package dev.sluice.runtime.resilience.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.EgressLocks;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.store.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The resilience layer as the attempt loop sees it: which connections may serve (and which
 * mechanism holds the others back), the breaker's admission of each attempt, and what a failure or
 * success does to each mechanism. The mechanisms stay separate (SPEC §5–§11) and the engine knows
 * them only as {@link Mechanism}s, asked in the order it was given ({@link #standard}): each
 * decides which verdicts concern it —
 *
 * <ul>
 *   <li>provider circuit breaker (§6): failures with {@link Verdict#countsForBreaker()};</li>
 *   <li>provider cooldown window gate (§7, off by default): upstream failures that fall back;</li>
 *   <li>model lockout (§11, off by default): {@code model}/{@code exact}-scoped failures whose
 *       status is in {@code modelLockout.errorCodes};</li>
 *   <li>connection cooldown (§8): {@code connection}-scoped failures, and rate or quota 429s that
 *       no model lockout took;</li>
 *   <li>egress-bucketed locks (§16.3): a bucketed family's 429 cools the connection and its
 *       siblings of the same egress IP.</li>
 * </ul>
 * Request-scoped failures (BO-7) touch nothing but the breaker's probe claim. The breaker is the
 * one mechanism that admits each attempt ({@link #acquire}) and the lockouts the one read once per
 * request ({@link #lockoutQuery}); the engine keeps them by name for that only.
 */
public final class ResilienceEngine {

    private final FailureClassifier classifier;
    private final Supplier<ResilienceSettings> settings;
    private final List<Mechanism> mechanisms;
    private final CircuitBreakers breakers;
    private final ModelLockouts lockouts;
    private final QuotaFamilies families;
    private final StatusRestatement restatement;
    private final QuotaObservations quotas;

    /**
     * Creates the engine.
     *
     * @param classifier the failure classifier
     * @param settings the live settings
     * @param mechanisms every mechanism, in the order they are asked ({@link #standard}); among
     *     them exactly one {@link CircuitBreakers} (it admits each attempt) and one
     *     {@link ModelLockouts} (read once per request)
     * @param families quota families
     * @param restatement status restatement rules (§16.1)
     * @param quotas the quotas upstreams announce (OF-4), or null to ignore them
     */
    public ResilienceEngine(FailureClassifier classifier, Supplier<ResilienceSettings> settings, List<? extends Mechanism> mechanisms,
            QuotaFamilies families, StatusRestatement restatement, QuotaObservations quotas) {
        this.classifier = requireNonNull(classifier, "classifier is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.mechanisms = List.copyOf(mechanisms);
        this.breakers = only(this.mechanisms, CircuitBreakers.class);
        this.lockouts = only(this.mechanisms, ModelLockouts.class);
        this.families = families;
        this.restatement = restatement;
        this.quotas = quotas;
    }

    private static <T> T only(List<Mechanism> mechanisms, Class<T> type) {
        List<T> found = mechanisms.stream().filter(type::isInstance).map(type::cast).toList();
        if (found.size() != 1) {
            throw new IllegalArgumentException("the engine needs exactly one " + type.getSimpleName() + " among its mechanisms, got "
                    + found.size());
        }
        return found.get(0);
    }

    /**
     * The standard mechanisms in the order the engine asks them: connection cooldown (its terminal
     * and cooling states are the first reasons a connection is held), the provider window gate,
     * egress-bucketed locks (they widen a failure before the lockout sees it), model lockout
     * (ahead of the cooldown's failure, which cools only what no lock took), the breaker. A new
     * mechanism is one more element here.
     *
     * @param cooldowns connection cooldowns (§8)
     * @param providerCooldowns the provider cooldown window gate (§7)
     * @param egressLocks egress-bucketed locks (§16.3), or null for none
     * @param lockouts model lockouts (§11)
     * @param breakers provider circuit breakers (§6)
     * @return the mechanisms, in order
     */
    public static List<Mechanism> standard(ConnectionCooldowns cooldowns, ProviderCooldowns providerCooldowns, EgressLocks egressLocks,
            ModelLockouts lockouts, CircuitBreakers breakers) {
        List<Mechanism> all = new ArrayList<>(List.of(cooldowns, providerCooldowns));
        if (egressLocks != null) {
            all.add(egressLocks);
        }
        all.add(lockouts);
        all.add(breakers);
        return List.copyOf(all);
    }

    /** @return the mechanisms the engine asks, in order (the cluster events reach them too) */
    public List<Mechanism> mechanisms() {
        return mechanisms;
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
        for (Mechanism m : mechanisms) {
            long ms = m.providerHeldMs(provider, providerClass);
            if (ms > 0) {
                return new Exclusion(Exclusion.Reason.PROVIDER_COOLDOWN, ms);
            }
        }
        return null;
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
        out.of(provider, providerClass, conn, breakerKey, lockoutQuery, now);
        for (Mechanism m : mechanisms) {
            if (m.holds(out)) {
                return true;
            }
        }
        return false;
    }

    /** A per-request scratch answer of {@link #held}: not thread-safe. */
    public static final class Hold extends HoldCheck {

        /** Forgets the cached breaker answer (after an attempt changed the breaker). */
        public void forgetBreaker() {
            forgetMemo();
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
        for (Mechanism m : mechanisms) {
            m.onEgress(c, egressIp, direct);
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
        FailedCandidate failed = new FailedCandidate(c, admission, v, errorMessage, errorCode);
        for (Mechanism m : mechanisms) {
            m.take(failed);
        }
        for (Mechanism m : mechanisms) {
            m.onFailure(failed);
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
        for (Mechanism m : mechanisms) {
            m.onSuccess(c);
        }
    }

    /**
     * A committed stream stalled (ST-1, CC-5): recorded on the connection; it cools only when
     * {@code streamStallCooldown.enabled}. Never counts for the breaker (the watchdog is the gateway's own).
     *
     * @param c the candidate whose stream stalled
     * @param message what happened
     */
    public void afterStreamStall(Candidate c, String message) {
        for (Mechanism m : mechanisms) {
            m.onStreamStall(c, message);
        }
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
