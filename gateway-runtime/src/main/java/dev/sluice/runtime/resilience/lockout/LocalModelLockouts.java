package dev.sluice.runtime.resilience.lockout;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import dev.sluice.runtime.resilience.lockout.LockoutTable.ProviderLocks;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One instance's model lockouts (SPEC §11), knowing nothing of the other instances. In memory only
 * (DM-4), driven by the injected clock, without a background thread; settings are read on every
 * call, so changes apply live. What it does to a lock is told to its {@link LockoutListener} (none
 * unless shared mode listens).
 *
 * <p>This class decides which keys a failure, a success or a request concerns. The parts it
 * delegates to:
 * {@link LockoutPolicy} (durations ML-2, bursts, escalation and decay ML-3),
 * {@link LockoutTable} (storage, its layout for the hot path and its concurrency),
 * {@link LockoutSweeper} (the memory bound) and {@link RetryInfoLocks} (RQ-4).
 *
 * <p><b>Keys (ML-4).</b> A failure locks its family, its base model or its exact model
 * ({@link LockoutKey}); a model is blocked by any of its keys in force. A success halves the count
 * on every key of the model and deletes the entry at 0, which ends the lock before its timer.
 *
 * <p><b>Master switch.</b> When {@code modelLockout.enabled} is false nothing is recorded, and
 * entries recorded earlier neither block nor are listed (they come back if the switch is turned on
 * again before they expire). RetryInfo locks hold either way.
 *
 * <p><b>Hot path (NF-3).</b> A request reads the (at most four) connection maps of its model once
 * ({@link #query}); each connection then costs at most four hash lookups and a time comparison,
 * and allocates nothing. Operations by connection (clearing, {@link #hasAny}) scan the key models;
 * they serve the admin API, not requests.
 */
final class LocalModelLockouts implements ModelLockouts {

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final LockoutTable table = new LockoutTable();
    private final LockoutSweeper sweeper = new LockoutSweeper(table);
    private final RetryInfoLocks retryInfo;
    /** Set once, at wiring (shared mode); read on writes only, never per walked connection. */
    private volatile LockoutListener listener = LockoutListener.NONE;

    /**
     * Creates an empty lockout table.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     */
    LocalModelLockouts(InstantSource clock, Supplier<ResilienceSettings> settings) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.retryInfo = new RetryInfoLocks(table, clock);
    }

    @Override
    public void listen(LockoutListener listener) {
        requireNonNull(listener, "listener is null");
        synchronized (this) {
            if (this.listener != LockoutListener.NONE) {
                throw new IllegalStateException("this lockout table has a listener already");
            }
            this.listener = listener;
        }
    }

    @Override
    public ModelLockout recordFailure(LockoutFailure f) {
        ModelLockoutSettings s = settings.get().modelLockout();
        if (!s.enabled() || !s.errorCodes().contains(f.status())) {
            return null;
        }
        requireNonNull(f.provider(), "provider is null");
        requireNonNull(f.connectionId(), "connectionId is null");
        requireNonNull(f.model(), "model is null");
        requireNonNull(f.reason(), "reason is null");
        LockoutKey key = LockoutKey.of(f);
        long now = clock.millis();
        ModelLockout locked = table.update(table.getOrCreate(f.provider()), key.kind(), key.model(), f.connectionId(),
                prev -> LockoutPolicy.next(prev, s, f, key.model(), key.scope(), now));
        sweeper.afterWrite(now, s.baseCooldownMs());
        tell(key.kind(), locked, now);
        return locked;
    }

    @Override
    public ModelLockout lockForRetryInfo(String provider, String connectionId, String model, FailureReason reason, long delayMs) {
        ModelLockout locked = retryInfo.lock(provider, connectionId, model, reason, delayMs);
        tell(LockoutKind.RETRY_INFO, locked, clock.millis());
        return locked;
    }

    /** Tells the listener of a lock in force (nothing is told of a lock that ended already). */
    private void tell(LockoutKind kind, ModelLockout locked, long now) {
        if (locked != null && locked.expiresAt() > now) {
            listener.inForce(kind, locked, now);
        }
    }

    @Override
    public Query query(String provider, String model, String family) {
        ProviderLocks p = table.get(provider);
        if (p == null) {
            return LockoutQuery.NONE;
        }
        ModelLockoutSettings s = settings.get().modelLockout();
        String exactKey = model.toLowerCase(Locale.ROOT);
        // RQ-4's locks hold whether or not lockout is enabled
        ConcurrentHashMap<String, ModelLockout> r = p.retryInfo.isEmpty() ? null : p.retryInfo.get(exactKey);
        if (!s.enabled()) {
            return r == null ? LockoutQuery.NONE
                    : new LockoutQuery(table, p, null, null, exactKey, null, null, null, r, clock.millis(), s.baseCooldownMs());
        }
        ConcurrentHashMap<String, ModelLockout> f = family == null ? null : p.family.get(family);
        ConcurrentHashMap<String, ModelLockout> m = p.model.get(model);
        ConcurrentHashMap<String, ModelLockout> x = p.exact.get(exactKey);
        if (f == null && m == null && x == null && r == null) {
            return LockoutQuery.NONE;
        }
        return new LockoutQuery(table, p, family, model, exactKey, f, m, x, r, clock.millis(), s.baseCooldownMs());
    }

    @Override
    public void onSuccess(String provider, String connectionId, String model, String family) {
        ProviderLocks p = table.get(provider);
        if (p == null) {
            return;
        }
        long now = clock.millis();
        if (family != null) {
            withdraw(LockoutKind.FAMILY, table.decay(p, LockoutKind.FAMILY, family, connectionId), now);
        }
        withdraw(LockoutKind.MODEL, table.decay(p, LockoutKind.MODEL, model, connectionId), now);
        withdraw(LockoutKind.EXACT, table.decay(p, LockoutKind.EXACT, model.toLowerCase(Locale.ROOT), connectionId), now);
    }

    /** A lock the decay ended before its timer is told to the listener. */
    private void withdraw(LockoutKind kind, ModelLockout ended, long now) {
        if (ended != null && ended.expiresAt() > now) {
            listener.endedEarly(kind, ended, now);
        }
    }

    @Override
    public List<ModelLockout> active() {
        List<ModelLockout> out = table.inForce(visibleKinds(), clock.millis());
        out.sort(Comparator.comparingLong(ModelLockout::expiresAt).thenComparing(ModelLockout::key));
        return List.copyOf(out);
    }

    @Override
    public boolean clear(String provider, String connectionId, String model) {
        String exactKey = model.toLowerCase(Locale.ROOT);
        ProviderLocks p = table.get(provider);
        if (p == null) {
            return false;
        }
        long now = clock.millis();
        int removed = table.remove(p, LockoutKind.FAMILY, model, connectionId, now)
                + table.remove(p, LockoutKind.MODEL, model, connectionId, now)
                + table.remove(p, LockoutKind.EXACT, exactKey, connectionId, now)
                + table.remove(p, LockoutKind.RETRY_INFO, exactKey, connectionId, now);
        return removed > 0;
    }

    @Override
    public int clearConnection(String connectionId) {
        return table.removeConnection(connectionId, clock.millis());
    }

    /** Another instance cleared a connection or one model of it (and the shared keys): this table forgets them too. */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        switch (event) {
            case ClusterEvent.ConnectionCleared c -> clearConnection(c.connectionId());
            case ClusterEvent.ModelCleared m -> clear(m.provider(), m.connectionId(), m.model());
            default -> {
            }
        }
    }

    @Override
    public int clearAll() {
        return table.removeAll(e -> true, clock.millis());
    }

    @Override
    public int activeCount() {
        return table.countInForce(visibleKinds(), clock.millis());
    }

    @Override
    public boolean hasAny(String connectionId) {
        return table.anyInForce(visibleKinds(), connectionId, clock.millis());
    }

    /** Entries held, in force or inside their escalation window; for tests of the memory bound. */
    int storedEntries() {
        return table.stored();
    }

    /** The kinds in force: all while lockout is enabled, else only RQ-4's. */
    private LockoutKind[] visibleKinds() {
        return settings.get().modelLockout().enabled() ? LockoutKind.ALL : LockoutKind.ALWAYS_ON;
    }
}
