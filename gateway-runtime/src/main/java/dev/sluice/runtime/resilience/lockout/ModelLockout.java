package dev.sluice.runtime.resilience.lockout;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;

/**
 * One model lockout (SPEC §11): a model, a quota family or an exact model that one connection may
 * not serve until {@code expiresAt}. Immutable; {@link ModelLockouts} replaces it on every change.
 *
 * @param provider the provider id
 * @param connectionId the connection id
 * @param model the locked key model (ML-4): the quota family name, the base model, or (scope
 *     {@code exact}) the lower-cased model. A family lock and a model lock may show the same name
 *     (family {@code gpt-5}, model {@code gpt-5}); they are distinct locks with the same {@link #key()}
 * @param scope {@link LockScope#MODEL} (family or base model) or {@link LockScope#EXACT}
 * @param reason the reason of the most recent failure on this key
 * @param lockedAt epoch ms of the most recent failure on this key
 * @param expiresAt epoch ms at which the lock ends (exclusive: blocked while {@code now < expiresAt})
 * @param failureCount failures that came after the previous lock ended and inside the escalation
 *     window (ML-3), at least 1; failures absorbed while the lock was in force do not count
 */
public record ModelLockout(String provider, String connectionId, String model, LockScope scope, FailureReason reason,
        long lockedAt, long expiresAt, int failureCount) {

    /** Validates. */
    public ModelLockout {
        requireNonNull(provider, "provider is null");
        requireNonNull(connectionId, "connectionId is null");
        requireNonNull(model, "model is null");
        requireNonNull(scope, "scope is null");
        requireNonNull(reason, "reason is null");
        if (scope != LockScope.MODEL && scope != LockScope.EXACT) {
            throw new IllegalArgumentException("a model lockout has scope model or exact, not " + scope.wireName());
        }
        if (failureCount < 1) {
            throw new IllegalArgumentException("failureCount must be at least 1: " + failureCount);
        }
    }

    /**
     * The state key of ML-4: {@code provider:connectionId:model}, or
     * {@code provider:connectionId:exact:model} for an exact lock.
     *
     * @return the key
     */
    public String key() {
        return scope == LockScope.EXACT
                ? provider + ':' + connectionId + ":exact:" + model
                : provider + ':' + connectionId + ':' + model;
    }

    /**
     * Milliseconds until the lock ends.
     *
     * @param nowMs the current epoch ms
     * @return the remaining time, 0 when expired
     */
    public long remainingMs(long nowMs) {
        return Math.max(0, expiresAt - nowMs);
    }
}
