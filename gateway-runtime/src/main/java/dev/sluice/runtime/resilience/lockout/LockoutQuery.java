package dev.sluice.runtime.resilience.lockout;

import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.lockout.LockoutTable.ProviderLocks;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The request side of model lockout (NF-3): the connection maps of one model's keys, read once per
 * request by {@link ModelLockouts#query}, with the time and the base cooldown of that moment. Per
 * connection it costs at most four hash lookups and a time comparison, and allocates nothing. An
 * entry it meets past its escalation window is dropped from the table on the spot.
 */
final class LockoutQuery implements ModelLockouts.Query {

    /** Nothing locked: answers null for every connection without looking. */
    static final LockoutQuery NONE = new LockoutQuery(null, null, null, null, null, null, null, null, null, 0, 0);

    private final LockoutTable table;
    private final ProviderLocks locks;
    private final String familyKey;
    private final String modelKey;
    private final String exactKey;
    private final ConcurrentHashMap<String, ModelLockout> family;
    private final ConcurrentHashMap<String, ModelLockout> model;
    private final ConcurrentHashMap<String, ModelLockout> exact;
    private final ConcurrentHashMap<String, ModelLockout> retryInfo;
    private final long now;
    private final long baseCooldownMs;

    /**
     * A query over the maps a request read; any map may be null (nothing of that kind locked).
     * RetryInfo locks are keyed by the exact key.
     */
    LockoutQuery(LockoutTable table, ProviderLocks locks, String familyKey, String modelKey, String exactKey,
            ConcurrentHashMap<String, ModelLockout> family, ConcurrentHashMap<String, ModelLockout> model,
            ConcurrentHashMap<String, ModelLockout> exact, ConcurrentHashMap<String, ModelLockout> retryInfo, long now,
            long baseCooldownMs) {
        this.table = table;
        this.locks = locks;
        this.familyKey = familyKey;
        this.modelKey = modelKey;
        this.exactKey = exactKey;
        this.family = family;
        this.model = model;
        this.exact = exact;
        this.retryInfo = retryInfo;
        this.now = now;
        this.baseCooldownMs = baseCooldownMs;
    }

    @Override
    public ModelLockout blocking(String connectionId) {
        return blocking(connectionId, now);
    }

    @Override
    public ModelLockout blocking(String connectionId, long atMs) {
        if (table == null) {
            return null;
        }
        ModelLockout best = null;
        if (family != null) {
            best = check(best, family, LockoutKind.FAMILY, familyKey, connectionId, atMs);
        }
        if (model != null) {
            best = check(best, model, LockoutKind.MODEL, modelKey, connectionId, atMs);
        }
        if (exact != null) {
            best = check(best, exact, LockoutKind.EXACT, exactKey, connectionId, atMs);
        }
        if (retryInfo != null) {
            best = check(best, retryInfo, LockoutKind.RETRY_INFO, exactKey, connectionId, atMs);
        }
        return best;
    }

    /** The later-ending of {@code best} and this key's entry in force; drops the entry if stale. */
    private ModelLockout check(ModelLockout best, ConcurrentHashMap<String, ModelLockout> conns, LockoutKind kind, String key,
            String connectionId, long atMs) {
        ModelLockout e = conns.get(connectionId);
        if (e == null) {
            return best;
        }
        if (e.expiresAt() > atMs) {
            return best == null || e.expiresAt() > best.expiresAt() ? e : best;
        }
        if (LockoutPolicy.isStale(e, atMs, baseCooldownMs)) {
            table.dropStale(locks, kind, key, conns, connectionId, e);
        }
        return best;
    }

    @Override
    public boolean holds(HoldCheck check) {
        return ModelLockouts.Query.hold(this, check);
    }
}
