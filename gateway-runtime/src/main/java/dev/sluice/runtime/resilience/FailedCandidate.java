package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.classify.Verdict;

/**
 * One failed attempt as the mechanisms see it, and what the earlier ones did about it: the scope
 * its lock takes (a mechanism may widen it to the connection in {@link Mechanism#scope}) and
 * whether a model lockout took it. Made by the engine once per failure; not thread-safe.
 */
public final class FailedCandidate {

    private final Candidate candidate;
    private final Object claim;
    private final Verdict verdict;
    private final String errorMessage;
    private final String errorCode;
    private final boolean ruleOnUncoolable;
    private LockScope lockScope;
    private boolean widened;
    private boolean modelLocked;

    /**
     * Creates the failure.
     *
     * @param candidate the candidate that failed
     * @param claim what the admitting mechanism gave the attempt (the breaker's admission), or null
     * @param verdict the classifier's verdict
     * @param errorMessage the upstream error, secrets scrubbed, or null
     * @param errorCode the upstream error code, or null
     */
    public FailedCandidate(Candidate candidate, Object claim, Verdict verdict, String errorMessage, String errorCode) {
        this.candidate = requireNonNull(candidate, "candidate is null");
        this.claim = claim;
        this.verdict = requireNonNull(verdict, "verdict is null");
        this.errorMessage = errorMessage;
        this.errorCode = errorCode;
        // ER-3: a connection-scoped rule on a connection that may not cool falls back to the model lock
        this.ruleOnUncoolable = verdict.ruleScope() == LockScope.CONNECTION && verdict.lockScope() == LockScope.CONNECTION
                && candidate.connection().disableCooling();
        this.lockScope = ruleOnUncoolable ? LockScope.MODEL : verdict.lockScope();
    }

    /** @return the candidate that failed */
    public Candidate candidate() {
        return candidate;
    }

    /** @return what the admitting mechanism gave the attempt, or null */
    public Object claim() {
        return claim;
    }

    /** @return the verdict */
    public Verdict verdict() {
        return verdict;
    }

    /** @return the upstream error, secrets scrubbed, or null */
    public String errorMessage() {
        return errorMessage;
    }

    /** @return the upstream error code, or null */
    public String errorCode() {
        return errorCode;
    }

    /** @return false for request-scoped failures (BO-7), which touch no connection, model or provider window */
    public boolean concernsTheConnection() {
        return !verdict.requestScoped();
    }

    /** @return whether a connection-scoped rule met a connection that may not cool (ER-3: the model is locked instead) */
    public boolean ruleOnUncoolable() {
        return ruleOnUncoolable;
    }

    /** @return the scope the failure's lock takes */
    public LockScope lockScope() {
        return lockScope;
    }

    /** The failure is the whole connection's (EB-3: an egress-bucketed 429 is the IP's). */
    public void widenToConnection() {
        lockScope = LockScope.CONNECTION;
        widened = true;
    }

    /** @return whether a mechanism widened the lock to the connection */
    public boolean widened() {
        return widened;
    }

    /** A model lockout took the failure. */
    public void modelLocked() {
        modelLocked = true;
    }

    /** @return whether a model lockout took the failure */
    public boolean tookModelLock() {
        return modelLocked;
    }
}
