package dev.sluice.runtime.resilience.lockout;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;

/**
 * What one failure does to one model-lockout key (SPEC §11): pure arithmetic on the entry in force,
 * the settings and the time, so that {@link LocalModelLockouts} only decides where entries live.
 *
 * <p><b>Duration (ML-2).</b> An upstream hint longer than {@code baseCooldownMs} wins (clamped to
 * {@code maxCooldownMs} unless authoritative); else a cooldown the failure declares (clamped to
 * {@code maxCooldownMs}); else {@code base × 2^min(failureCount − 1, maxBackoffSteps)} capped at
 * {@code maxCooldownMs}, or {@code base} when exponential backoff is off.
 *
 * <p><b>Bursts (like CC-3).</b> A failure that arrives while its key's lock is in force
 * ({@code now < expiresAt}) is absorbed: concurrent requests that hit the same limit are one event,
 * so the count and the expiry stay as they are. Only a hint or declared cooldown that ends later
 * than the lock in force extends it (longer wins); the lock then takes that failure's reason and
 * time, still with the same count.
 *
 * <p><b>Escalation window (ML-3).</b> A failure after the lock ended is a repeat, and increments
 * {@code failureCount}, when it comes no later than one base cooldown after the lock ended
 * ({@code now ≤ expiresAt + baseCooldownMs}); otherwise the count restarts at 1. The window is the
 * lockout's own base cooldown (OmniRoute uses the breaker's reset timeout, which is not a
 * model-lockout setting). So that the window can be honoured, an entry outlives its lock by
 * {@code baseCooldownMs}: it stops blocking at {@code expiresAt} and is {@link #isStale stale}
 * after the window. A success halves the count ({@link #decayed}).
 */
final class LockoutPolicy {

    private LockoutPolicy() {
    }

    /**
     * The entry a failure leaves on its key.
     *
     * @param prev the key's entry on the connection, or null
     * @param s the lockout settings
     * @param f the failure
     * @param keyModel the key model (family, model or lower-cased exact model)
     * @param scope the resolved scope
     * @param now the current time, epoch ms
     * @return the entry now in force; {@code prev} itself when the failure is absorbed unchanged
     */
    static ModelLockout next(ModelLockout prev, ModelLockoutSettings s, LockoutFailure f, String keyModel, LockScope scope,
            long now) {
        return prev != null && now < prev.expiresAt()
                ? absorb(prev, s, f.reason(), now, f.hintMs(), f.hintAuthoritative(), f.declaredCooldownMs())
                : lock(prev, s, f.provider(), f.connectionId(), keyModel, scope, f.reason(), now, f.hintMs(),
                        f.hintAuthoritative(), f.declaredCooldownMs());
    }

    /** A failure while the key's lock is in force: same count, same expiry unless a longer explicit one. */
    private static ModelLockout absorb(ModelLockout prev, ModelLockoutSettings s, FailureReason reason, long now, Long hintMs,
            boolean hintAuthoritative, Long declaredCooldownMs) {
        long explicit = explicitMs(s, hintMs, hintAuthoritative, declaredCooldownMs);
        if (explicit < 0) {
            return prev;
        }
        long until = saturatedAdd(now, explicit);
        return until <= prev.expiresAt() ? prev
                : new ModelLockout(prev.provider(), prev.connectionId(), prev.model(), prev.scope(), reason, now, until,
                        prev.failureCount());
    }

    /** A failure with no lock in force: a repeat inside the window escalates, else the count restarts. */
    private static ModelLockout lock(ModelLockout prev, ModelLockoutSettings s, String provider, String connectionId,
            String keyModel, LockScope scope, FailureReason reason, long now, Long hintMs, boolean hintAuthoritative,
            Long declaredCooldownMs) {
        int count = prev != null && now <= saturatedAdd(prev.expiresAt(), s.baseCooldownMs())
                ? (prev.failureCount() == Integer.MAX_VALUE ? Integer.MAX_VALUE : prev.failureCount() + 1)
                : 1;
        long expiresAt = saturatedAdd(now, cooldownMs(s, count, hintMs, hintAuthoritative, declaredCooldownMs));
        return new ModelLockout(provider, connectionId, keyModel, scope, reason, now, expiresAt, count);
    }

    /**
     * The ML-2 duration of a failure with no lock in force.
     *
     * @param s the lockout settings
     * @param failureCount the key's count including this failure
     * @param hintMs the upstream retry hint, or null
     * @param hintAuthoritative whether the hint may exceed {@code maxCooldownMs}
     * @param declaredCooldownMs a cooldown the failure declares, or null
     * @return the lock's duration, ms (saturating at {@link Long#MAX_VALUE})
     */
    static long cooldownMs(ModelLockoutSettings s, int failureCount, Long hintMs, boolean hintAuthoritative,
            Long declaredCooldownMs) {
        long explicit = explicitMs(s, hintMs, hintAuthoritative, declaredCooldownMs);
        if (explicit >= 0) {
            return explicit;
        }
        long base = s.baseCooldownMs();
        if (!s.useExponentialBackoff()) {
            return base;
        }
        int steps = Math.max(0, Math.min(failureCount - 1, s.maxBackoffSteps()));
        long scaled = steps >= 63 || base > (Long.MAX_VALUE >> steps) ? Long.MAX_VALUE : base << steps;
        return Math.min(scaled, s.maxCooldownMs());
    }

    /** The duration an upstream hint (longer than the base) or a declared cooldown asks for, or −1. */
    private static long explicitMs(ModelLockoutSettings s, Long hintMs, boolean hintAuthoritative, Long declaredCooldownMs) {
        if (hintMs != null && hintMs > s.baseCooldownMs()) {
            return hintAuthoritative ? hintMs : Math.min(hintMs, s.maxCooldownMs());
        }
        if (declaredCooldownMs != null && declaredCooldownMs > 0) {
            return Math.min(declaredCooldownMs, s.maxCooldownMs());
        }
        return -1;
    }

    /**
     * ML-3 success decay: the entry with its count halved (floor), or null when that reaches 0,
     * which ends the lock before its timer.
     *
     * @param e the entry
     * @return the decayed entry, or null to delete it
     */
    static ModelLockout decayed(ModelLockout e) {
        int halved = e.failureCount() / 2;
        return halved == 0 ? null
                : new ModelLockout(e.provider(), e.connectionId(), e.model(), e.scope(), e.reason(), e.lockedAt(), e.expiresAt(),
                        halved);
    }

    /**
     * Whether an entry is past its escalation window: it neither blocks nor counts as a repeat any
     * more, so it may be forgotten.
     *
     * @param e the entry
     * @param now the current time, epoch ms
     * @param baseCooldownMs the base cooldown (the window)
     * @return true when stale
     */
    static boolean isStale(ModelLockout e, long now, long baseCooldownMs) {
        return now > saturatedAdd(e.expiresAt(), baseCooldownMs);
    }

    /**
     * {@code a + b}, clamped to the range of {@code long} instead of overflowing.
     *
     * @param a a value
     * @param b another
     * @return the saturated sum
     */
    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
    }
}
