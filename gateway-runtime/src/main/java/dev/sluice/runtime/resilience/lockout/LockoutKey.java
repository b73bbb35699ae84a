package dev.sluice.runtime.resilience.lockout;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.util.Locale;

/**
 * The key a model-scoped failure locks (SPEC ML-1, ML-4). A {@link LockScope#MODEL} lock is keyed
 * {@code provider:connectionId:model} where the key model is the quota family when the provider
 * declares one, else the model itself; a 404 ({@code not_found}, {@code not_found_local}) always
 * locks the base model, never its family. A {@link LockScope#EXACT} lock is keyed
 * {@code provider:connectionId:exact:model} with the model lower-cased.
 *
 * @param kind the namespace the key model lives in
 * @param model the key model: family, base model, or lower-cased exact model
 * @param scope the resolved scope, {@link LockScope#MODEL} or {@link LockScope#EXACT}
 */
record LockoutKey(LockoutKind kind, String model, LockScope scope) {

    /**
     * The key of a failure whose model and reason are known to be non-null.
     *
     * @param f the failure
     * @return its key
     */
    static LockoutKey of(LockoutFailure f) {
        LockScope resolved = resolveScope(f.status(), f.scope());
        if (resolved == LockScope.EXACT) {
            return new LockoutKey(LockoutKind.EXACT, f.model().toLowerCase(Locale.ROOT), resolved);
        }
        if (f.family() != null && !isNotFound(f.reason(), f.status())) {
            return new LockoutKey(LockoutKind.FAMILY, f.family(), resolved);
        }
        return new LockoutKey(LockoutKind.MODEL, f.model(), resolved);
    }

    /**
     * ML-1 {@code resolveLockoutScope}; see {@link ModelLockouts#resolveScope}.
     *
     * @param status the upstream (or synthetic) status
     * @param explicit the caller's scope, or null
     * @return {@link LockScope#MODEL} or {@link LockScope#EXACT}
     */
    static LockScope resolveScope(int status, LockScope explicit) {
        if (explicit == LockScope.MODEL || explicit == LockScope.EXACT) {
            return explicit;
        }
        return switch (status) {
            case 429, 403, 402, 404 -> LockScope.MODEL;
            default -> LockScope.EXACT;
        };
    }

    private static boolean isNotFound(FailureReason reason, int status) {
        return status == 404 || reason == FailureReason.NOT_FOUND || reason == FailureReason.NOT_FOUND_LOCAL;
    }
}
