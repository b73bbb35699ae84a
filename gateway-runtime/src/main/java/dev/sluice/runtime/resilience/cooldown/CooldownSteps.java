package dev.sluice.runtime.resilience.cooldown;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.ResilienceSettings.CooldownProfile;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Terminal;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one account-level failure does to a connection (SPEC CC-2, CC-4, CC-6), decided for
 * {@link ConnectionCooldowns}, which serializes the calls per connection and writes the result: the
 * terminal state it leads to, if any, and otherwise the cooldown and the levels it leaves behind.
 * Holds the {@code request_rejected} streaks (in memory, per instance).
 */
final class CooldownSteps {

    private final ConcurrentHashMap<String, Streak> rejectedStreaks = new ConcurrentHashMap<>();

    /** The terminal status a failure leads to, or null. */
    Terminal terminal(String connectionId, Verdict v, ConnectionState s, long now) {
        if (v.ruleScope() != null) {
            // ER-3: a provider error rule only ever cools (a rule combining connection scope with a
            // terminal reason must not end an account)
            return null;
        }
        if (v.creditsExhausted() || v.reason() == FailureReason.CREDITS_EXHAUSTED) {
            return Terminal.CREDITS_EXHAUSTED;
        }
        if (v.permanent() || v.reason() == FailureReason.BANNED) {
            return Terminal.BANNED;
        }
        if (v.reason() == FailureReason.EXPIRED && s.expiredRetries() >= ConnectionCooldowns.EXPIRED_RETRY_MAX) {
            // the retries counted before this failure: the first ConnectionCooldowns.EXPIRED_RETRY_MAX cool, the next ends it
            return Terminal.EXPIRED;
        }
        if (v.reason() == FailureReason.REQUEST_REJECTED) {
            Streak streak = rejectedStreaks.compute(connectionId, (k, old) ->
                    old == null || now - old.firstAt > ConnectionCooldowns.REQUEST_REJECTED_WINDOW_MS ? new Streak(now, 1) : new Streak(old.firstAt, old.count + 1));
            if (streak.count >= ConnectionCooldowns.REQUEST_REJECTED_BAN_AT) {
                return Terminal.BANNED;
            }
        }
        return null;
    }

    private record Streak(long firstAt, int count) {
    }

    record Step(long cooldownMs, int backoffLevel, int expiredRetries, boolean fromFormula) {
    }

    /** CC-2, CC-4, CC-6: the cooldown of a transient failure and the levels it leaves behind. */
    Step step(Connection c, CooldownProfile p, Verdict v, ConnectionState s) {
        int level = s.backoffLevel();
        int next = Math.min(level + 1, p.maxBackoffSteps());
        long formula = ConnectionCooldowns.backoff(p, level);
        Long hint = v.retryAfterMs();
        boolean quota = v.reason() == FailureReason.QUOTA_EXHAUSTED;
        if (hint != null && !quota && !v.hintSource().authoritative()) {
            // CC-2: a "retry in" read from body text may not exceed maxCooldownMs; an announced quota
            // reset may (BO-5: "resets in 3 days" is honoured, within the classifier's 30-day cap)
            hint = Math.min(hint, p.maxCooldownMs());
        }
        return switch (v.reason()) {
            case CONCURRENCY_LIMITED -> new Step(hint != null ? hint : v.cooldownMs() != null ? v.cooldownMs() : ConnectionCooldowns.CONCURRENCY_LIMIT_COOLDOWN_MS,
                    level, s.expiredRetries(), false);
            case EXPIRED -> new Step(Math.min(p.baseCooldownMs() << Math.min(s.expiredRetries(), 30), p.maxCooldownMs()),
                    level, s.expiredRetries() + 1, true);
            case REQUEST_REJECTED -> {
                Streak streak = rejectedStreaks.get(c.id());
                int i = streak == null ? 0 : Math.min(streak.count - 1, ConnectionCooldowns.REQUEST_REJECTED_COOLDOWNS_MS.length - 1);
                yield new Step(ConnectionCooldowns.REQUEST_REJECTED_COOLDOWNS_MS[i], next, s.expiredRetries(), false);
            }
            default -> {
                if (v.cooldownMs() != null) {
                    // the duration the failure declares (1 h subscription, 24 h weekly …), unless the
                    // upstream announced a later reset
                    yield new Step(hint != null ? Math.max(hint, v.cooldownMs()) : v.cooldownMs(), next, s.expiredRetries(), false);
                }
                if (quota && hint != null) {
                    yield new Step(hint, next, s.expiredRetries(), false);
                }
                if (hint != null && (c.authType() != ProviderClass.OAUTH || hint >= formula)) {
                    // BO-2: an API key follows the upstream's hint; an OAuth account takes the longer of the two
                    yield new Step(hint, next, s.expiredRetries(), false);
                }
                yield new Step(formula, next, s.expiredRetries(), true);
            }
        };
    }

    /**
     * Forgets a connection's {@code request_rejected} streak (a success, a clear, a terminal state).
     *
     * @param connectionId the connection
     * @return whether there was one
     */
    boolean forget(String connectionId) {
        return rejectedStreaks.remove(connectionId) != null;
    }
}
