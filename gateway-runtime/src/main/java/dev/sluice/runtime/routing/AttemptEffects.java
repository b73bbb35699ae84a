package dev.sluice.runtime.routing;

import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ProxyLogRow;

/**
 * What a failed attempt left on its connection (issue 33), read right after the failure path
 * settled it and compared with the connection as it was selected: a cooldown that starts or lasts
 * longer, a terminal state it was not in, or a lockout of the attempt's model (which could not have
 * blocked it when it was selected). The Logs page shows it beside the attempt, so an operator sees
 * the cooldown this attempt caused rather than whatever holds the connection later.
 *
 * <p>Reads memory only (the connection store's snapshot, the lockout table): a few hundred
 * nanoseconds on the failure path, nothing on a success.
 */
final class AttemptEffects {

    private final ConnectionSelector selector;
    private final ResilienceEngine engine;

    AttemptEffects(ConnectionSelector selector, ResilienceEngine engine) {
        this.selector = selector;
        this.engine = engine;
    }

    /**
     * The effect of a settled failure.
     *
     * @param candidate the candidate as selected (its connection's state from before the attempt)
     * @param now the current time, epoch ms
     * @return the effect, or null when the attempt changed nothing that holds the connection back
     */
    ProxyLogRow.Effect of(Candidate candidate, long now) {
        ConnectionState before = candidate.connection().state();
        Connection current = selector.current(candidate.connection().id()).orElse(null);
        if (current != null) {
            ConnectionState after = current.state();
            if (ConnectionCooldowns.isTerminal(after.testStatus()) && !ConnectionCooldowns.isTerminal(before.testStatus())) {
                return new ProxyLogRow.Effect(ProxyLogRow.Effect.TERMINAL, null, after.testStatus());
            }
            Long until = after.rateLimitedUntil();
            if (until != null && until > now && (before.rateLimitedUntil() == null || until > before.rateLimitedUntil())) {
                return new ProxyLogRow.Effect(ProxyLogRow.Effect.COOLDOWN, until, after.lastErrorType());
            }
        }
        ModelLockout lock = engine.lockoutQuery(candidate.provider(), candidate.model(), candidate.family())
                .blocking(candidate.connection().id(), now);
        return lock == null ? null : new ProxyLogRow.Effect(ProxyLogRow.Effect.MODEL_LOCKOUT, lock.expiresAt(), lock.reason().wireName());
    }
}
