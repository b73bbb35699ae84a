package dev.sluice.runtime.resilience.lockout;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.time.InstantSource;
import java.util.Locale;

/**
 * RQ-4: a structured Google {@code RetryInfo} delay too long for the connection's queue locks the
 * model on that connection for the delay (at most {@link #MAX_MS}). Unlike ordinary lockouts these
 * locks hold whether or not model lockout is enabled, never escalate, and match the model name
 * exactly (case-insensitively); they share the table, so listing, clearing and the request query
 * see them like any other lock.
 */
final class RetryInfoLocks {

    /** The longest a RetryInfo lock lasts (24 h). */
    static final long MAX_MS = 86_400_000L;

    private final LockoutTable table;
    private final InstantSource clock;

    RetryInfoLocks(LockoutTable table, InstantSource clock) {
        this.table = table;
        this.clock = clock;
    }

    /**
     * Locks a model on a connection for an announced delay; a longer lock already in force is kept.
     *
     * @param provider the provider id
     * @param connectionId the connection
     * @param model the model name to lock
     * @param reason the failure's reason
     * @param delayMs the announced delay
     * @return the lockout in force
     */
    ModelLockout lock(String provider, String connectionId, String model, FailureReason reason, long delayMs) {
        long now = clock.millis();
        long until = LockoutPolicy.saturatedAdd(now, Math.min(Math.max(delayMs, 1), MAX_MS));
        String key = model.toLowerCase(Locale.ROOT);
        return table.update(table.getOrCreate(provider), LockoutKind.RETRY_INFO, key, connectionId,
                prev -> prev != null && prev.expiresAt() >= until ? prev
                        : new ModelLockout(provider, connectionId, key, LockScope.EXACT, reason, now, until, 1));
    }
}
