package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Model lockout (SPEC §11): one connection stops serving one model, or one quota family of
 * models, while its other models keep working. In memory only (DM-4), driven by the injected clock,
 * without a background thread; settings are read on every call, so changes apply live.
 *
 * <p><b>Keys (ML-4).</b> A {@link LockScope#MODEL} lock is keyed {@code provider:connectionId:model}
 * where the key model is the quota family when the provider declares one, else the model itself;
 * a 404 ({@code not_found}, {@code not_found_local}) always locks the base model, never its family.
 * A {@link LockScope#EXACT} lock is keyed {@code provider:connectionId:exact:model} with the model
 * lower-cased. Family keys and model keys are kept apart internally, so a family named like one of
 * its models ({@code gpt-5}) and a 404 lock of that model never stand for each other; both show the
 * name as {@link ModelLockout#model()}. A model is blocked by its family key, its model key or its
 * exact key.
 *
 * <p><b>Durations, bursts, escalation (ML-2, ML-3).</b> What one failure or success does to one
 * key is {@link LockoutPolicy}'s arithmetic. An entry outlives its lock by one base cooldown (the
 * escalation window): it stops blocking at {@code expiresAt} and is forgotten after the window. A
 * success halves the count on every key of the model and deletes the entry at 0, which ends the
 * lock before its timer.
 *
 * <p><b>Master switch.</b> When {@code modelLockout.enabled} is false nothing is recorded, and
 * entries recorded earlier neither block nor are listed (they come back if the switch is turned on
 * again before they expire).
 *
 * <p><b>Memory.</b> Entries past their escalation window are removed when a read meets them and by
 * a sweep that a write runs once more than {@code max(10 000, 2 × the count after the previous
 * sweep)} entries are stored. Unexpired locks are never dropped, so there is no hard cap: the table
 * holds about twice the number of keys that failed within the last {@code maxCooldownMs +
 * baseCooldownMs} (longer for authoritative hints above the maximum).
 *
 * <p><b>Hot path (NF-3).</b> The table is model first: provider → kind (family, model, exact) →
 * key model → connection → lockout. A request reads the (at most three) connection maps of its
 * model once ({@link #query}); each connection then costs at most three hash lookups and a time
 * comparison, and allocates nothing. Operations by connection (clearing, {@link #hasAny}) scan the
 * key models; they serve the admin API, not requests.
 *
 * <p><b>Concurrency.</b> Reads are lock-free. Every write to one key model (all its connections) runs
 * inside {@link ConcurrentHashMap#compute} of that key, which also drops the key's connection map
 * once it is empty; a read that meets an entry past its window removes just that entry,
 * conditionally on its identity. A query holds the connection maps it read, so a lock recorded while
 * it runs may be missed by that one request, never by later ones; a removed or decayed lock is
 * replaced or removed in place and never blocks after the write returns.
 */
public final class ModelLockouts {

    /** Stored entries above which a write sweeps out entries past their escalation window. */
    static final int SWEEP_THRESHOLD = 10_000;

    /** Drops a key model's connection map once it holds nothing (non-capturing: no allocation). */
    private static final BiFunction<String, ConcurrentHashMap<String, ModelLockout>, ConcurrentHashMap<String, ModelLockout>>
            DROP_IF_EMPTY = (k, conns) -> conns.isEmpty() ? null : conns;

    /** RQ-4: the longest a RetryInfo lock lasts (24 h). */
    public static final long RETRY_INFO_MAX_MS = 86_400_000L;

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final ConcurrentHashMap<String, ProviderLocks> byProvider = new ConcurrentHashMap<>();
    private final AtomicInteger stored = new AtomicInteger();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile int sweepAbove = SWEEP_THRESHOLD;

    /**
     * Creates an empty lockout table.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     */
    public ModelLockouts(InstantSource clock, Supplier<ResilienceSettings> settings) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    /**
     * ML-1 {@code resolveLockoutScope}: an explicit {@code model} or {@code exact} scope from the
     * caller wins; otherwise 429, 403 and 402 (quota or entitlement) lock the quota family
     * ({@link LockScope#MODEL}), 404 locks the base model ({@link LockScope#MODEL}; the key model
     * is then the model itself), and every other status locks only the exact model. A
     * {@code connection} or {@code provider} scope is not a model scope and is ignored here.
     *
     * @param status the upstream (or synthetic) status
     * @param explicit the caller's scope, or null
     * @return {@link LockScope#MODEL} or {@link LockScope#EXACT}
     */
    public static LockScope resolveScope(int status, LockScope explicit) {
        if (explicit == LockScope.MODEL || explicit == LockScope.EXACT) {
            return explicit;
        }
        return switch (status) {
            case 429, 403, 402, 404 -> LockScope.MODEL;
            default -> LockScope.EXACT;
        };
    }

    /**
     * Records a model-scoped failure.
     *
     * @param f the failure (its scope resolved with {@link #resolveScope}; null resolves by status)
     * @return the lockout now in force for the key (the one already in force when the failure is
     *     absorbed), or null when lockout is disabled or the status is not one of {@code errorCodes}
     */
    public ModelLockout recordFailure(LockoutFailure f) {
        ModelLockoutSettings s = settings.get().modelLockout();
        if (!s.enabled() || !s.errorCodes().contains(f.status())) {
            return null;
        }
        String provider = requireNonNull(f.provider(), "provider is null");
        String connectionId = requireNonNull(f.connectionId(), "connectionId is null");
        String model = requireNonNull(f.model(), "model is null");
        FailureReason reason = requireNonNull(f.reason(), "reason is null");
        int status = f.status();
        String family = f.family();
        LockScope resolved = resolveScope(status, f.scope());
        Kind kind;
        String keyModel;
        if (resolved == LockScope.EXACT) {
            kind = Kind.EXACT;
            keyModel = model.toLowerCase(Locale.ROOT);
        } else if (family != null && !isNotFound(reason, status)) {
            kind = Kind.FAMILY;
            keyModel = family;
        } else {
            kind = Kind.MODEL;
            keyModel = model;
        }
        long now = clock.millis();
        ModelLockout[] result = new ModelLockout[1];
        ProviderLocks p = byProvider.computeIfAbsent(provider, id -> new ProviderLocks());
        p.map(kind).compute(keyModel, (k, conns) -> {
            if (conns == null) {
                conns = new ConcurrentHashMap<>(4);
            }
            ModelLockout next = LockoutPolicy.next(conns.get(connectionId), s, f, keyModel, resolved, now);
            // put even an unchanged prev: a read may have dropped it meanwhile (null then counts it again)
            if (conns.put(connectionId, next) == null) {
                stored.incrementAndGet();
            }
            result[0] = next;
            return conns;
        });
        maybeSweep(now, s.baseCooldownMs());
        return result[0];
    }

    /**
     * Records a model-scoped failure given positionally.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the requested upstream model
     * @param family the model's quota family, or null
     * @param scope the lock scope, or null
     * @param reason the failure reason
     * @param status the status that counts against {@code errorCodes}
     * @param hintMs the upstream retry hint in ms, or null
     * @param hintAuthoritative whether the hint may exceed {@code maxCooldownMs}
     * @param declaredCooldownMs a cooldown the failure declares, or null
     * @return see {@link #recordFailure(LockoutFailure)}
     * @deprecated ten positional arguments are easy to swap; build a {@link LockoutFailure}. Kept
     *     for callers in packages being reworked by others (routing tests).
     */
    @Deprecated
    public ModelLockout recordFailure(String provider, String connectionId, String model, String family,
            LockScope scope, FailureReason reason, int status, Long hintMs, boolean hintAuthoritative,
            Long declaredCooldownMs) {
        return recordFailure(new LockoutFailure(provider, connectionId, model, family, scope, reason, status, hintMs,
                hintAuthoritative, declaredCooldownMs));
    }

    /**
     * The lockouts that may concern one model in one request (NF-3): its family, model and exact
     * connection maps are read once, with the settings and the clock; then {@link Query#blocking}
     * answers per connection. When lockout is disabled or nothing of the model is locked, the answer
     * is a shared empty query that costs nothing per connection.
     *
     * @param provider the provider id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the query
     */
    public Query query(String provider, String model, String family) {
        ProviderLocks p = byProvider.get(provider);
        if (p == null) {
            return Query.NONE;
        }
        ModelLockoutSettings s = settings.get().modelLockout();
        String exactKey = model.toLowerCase(Locale.ROOT);
        // RQ-4's locks hold whether or not lockout is enabled
        ConcurrentHashMap<String, ModelLockout> r = p.retryInfo.isEmpty() ? null : p.retryInfo.get(exactKey);
        if (!s.enabled()) {
            return r == null ? Query.NONE : new Query(this, p, null, null, exactKey, null, null, null, r, clock.millis(), s.baseCooldownMs());
        }
        ConcurrentHashMap<String, ModelLockout> f = family == null ? null : p.family.get(family);
        ConcurrentHashMap<String, ModelLockout> m = p.model.get(model);
        ConcurrentHashMap<String, ModelLockout> x = p.exact.get(exactKey);
        if (f == null && m == null && x == null && r == null) {
            return Query.NONE;
        }
        return new Query(this, p, family, model, exactKey, f, m, x, r, clock.millis(), s.baseCooldownMs());
    }

    /**
     * One request's view of the lockouts of its model; see {@link #query}. It holds the model's
     * connection maps, the time it was made and the base cooldown; it is cheap to ask per
     * connection and may be shared by the threads of one request.
     */
    public static final class Query {
        static final Query NONE = new Query(null, null, null, null, null, null, null, null, null, 0, 0);
        private final ModelLockouts owner;
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

        private Query(ModelLockouts owner, ProviderLocks locks, String familyKey, String modelKey, String exactKey,
                ConcurrentHashMap<String, ModelLockout> family, ConcurrentHashMap<String, ModelLockout> model,
                ConcurrentHashMap<String, ModelLockout> exact, ConcurrentHashMap<String, ModelLockout> retryInfo, long now,
                long baseCooldownMs) {
            this.retryInfo = retryInfo;
            this.owner = owner;
            this.locks = locks;
            this.familyKey = familyKey;
            this.modelKey = modelKey;
            this.exactKey = exactKey;
            this.family = family;
            this.model = model;
            this.exact = exact;
            this.now = now;
            this.baseCooldownMs = baseCooldownMs;
        }

        /**
         * The lockout that blocks this model on a connection at the time the query was made: of the
         * family, model and exact locks in force, the one that ends last.
         *
         * @param connectionId the connection
         * @return the blocking lockout, or null
         */
        public ModelLockout blocking(String connectionId) {
            return blocking(connectionId, now);
        }

        /**
         * The lockout that blocks this model on a connection at a given time (for a walk that
         * outlives the moment the query was made).
         *
         * @param connectionId the connection
         * @param atMs the time, epoch ms
         * @return the blocking lockout, or null
         */
        public ModelLockout blocking(String connectionId, long atMs) {
            if (owner == null) {
                return null;
            }
            ModelLockout best = null;
            if (family != null) {
                best = check(best, family, Kind.FAMILY, familyKey, connectionId, atMs);
            }
            if (model != null) {
                best = check(best, model, Kind.MODEL, modelKey, connectionId, atMs);
            }
            if (exact != null) {
                best = check(best, exact, Kind.EXACT, exactKey, connectionId, atMs);
            }
            if (retryInfo != null) {
                best = check(best, retryInfo, Kind.RETRY_INFO, exactKey, connectionId, atMs);
            }
            return best;
        }

        private ModelLockout check(ModelLockout best, ConcurrentHashMap<String, ModelLockout> conns, Kind kind, String key,
                String connectionId, long atMs) {
            ModelLockout e = conns.get(connectionId);
            if (e == null) {
                return best;
            }
            if (e.expiresAt() > atMs) {
                return best == null || e.expiresAt() > best.expiresAt() ? e : best;
            }
            if (LockoutPolicy.isStale(e, atMs, baseCooldownMs)) {
                owner.dropStale(locks.map(kind), key, conns, connectionId, e);
            }
            return best;
        }
    }

    /**
     * The lockout that blocks a model on a connection now: the one of the family key, the model key
     * and the exact key that ends last, if any is in force. Convenience over {@link #query}.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the blocking lockout, or null
     */
    public ModelLockout blocking(String provider, String connectionId, String model, String family) {
        return query(provider, model, family).blocking(connectionId);
    }

    /**
     * ML-3 success decay: halves (floor) the failure count of every key the model maps to (family,
     * model, exact); an entry whose count reaches 0 is deleted, which ends its lock before the timer.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the upstream model that answered
     * @param family its quota family, or null
     */
    public void onSuccess(String provider, String connectionId, String model, String family) {
        ProviderLocks p = byProvider.get(provider);
        if (p == null) {
            return;
        }
        if (family != null) {
            decay(p.family, family, connectionId);
        }
        decay(p.model, model, connectionId);
        decay(p.exact, model.toLowerCase(Locale.ROOT), connectionId);
    }

    /**
     * The lockouts in force (ML-5 listing), soonest to end first.
     *
     * @return unexpired lockouts sorted by {@code expiresAt}; empty when lockout is disabled
     */
    public List<ModelLockout> active() {
        Kind[] kinds = visibleKinds();
        long now = clock.millis();
        List<ModelLockout> out = new ArrayList<>();
        for (ProviderLocks p : byProvider.values()) {
            for (Kind kind : kinds) {
                for (ConcurrentHashMap<String, ModelLockout> conns : p.map(kind).values()) {
                    for (ModelLockout e : conns.values()) {
                        if (e.expiresAt() > now) {
                            out.add(e);
                        }
                    }
                }
            }
        }
        out.sort(Comparator.comparingLong(ModelLockout::expiresAt).thenComparing(ModelLockout::key));
        return List.copyOf(out);
    }

    /**
     * ML-5 {@code DELETE}: re-enables one key model on a connection. The model is matched as a key
     * model: a family name, a model, or (case-insensitively) an exact model; when a family and a
     * model share the name, both locks are removed.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the key model as listed by {@link #active()}
     * @return true when an unexpired lockout was removed
     */
    public boolean clear(String provider, String connectionId, String model) {
        ProviderLocks p = byProvider.get(provider);
        if (p == null) {
            return false;
        }
        long now = clock.millis();
        int removed = remove(p.family, model, connectionId, now) + remove(p.model, model, connectionId, now)
                + remove(p.exact, model.toLowerCase(Locale.ROOT), connectionId, now)
                + remove(p.retryInfo, model.toLowerCase(Locale.ROOT), connectionId, now);
        return removed > 0;
    }

    /**
     * Removes every lockout of a connection (e.g. when an operator clears its cooldown). Scans the
     * key models.
     *
     * @param connectionId the connection id
     * @return the number of unexpired lockouts removed
     */
    public int clearConnection(String connectionId) {
        long now = clock.millis();
        int unexpired = 0;
        for (ProviderLocks p : byProvider.values()) {
            for (Kind kind : Kind.ALL) {
                ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map = p.map(kind);
                for (Map.Entry<String, ConcurrentHashMap<String, ModelLockout>> key : map.entrySet()) {
                    if (key.getValue().containsKey(connectionId)) {
                        unexpired += remove(map, key.getKey(), connectionId, now);
                    }
                }
            }
        }
        return unexpired;
    }

    /**
     * Removes every lockout ({@code POST /api/resilience/reset}).
     *
     * @return the number of unexpired lockouts removed
     */
    public int clearAll() {
        long now = clock.millis();
        int[] unexpired = new int[1];
        for (ProviderLocks p : byProvider.values()) {
            for (Kind kind : Kind.ALL) {
                ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map = p.map(kind);
                for (String key : map.keySet()) {
                    map.computeIfPresent(key, (k, conns) -> {
                        for (Map.Entry<String, ModelLockout> e : conns.entrySet()) {
                            if (removeEntry(conns, e.getKey(), e.getValue()) && e.getValue().expiresAt() > now) {
                                unexpired[0]++;
                            }
                        }
                        return conns.isEmpty() ? null : conns;
                    });
                }
            }
        }
        return unexpired[0];
    }

    /**
     * The number of lockouts in force.
     *
     * @return the count (a scan; not for the hot path); 0 when lockout is disabled
     */
    public int activeCount() {
        Kind[] kinds = visibleKinds();
        long now = clock.millis();
        int n = 0;
        for (ProviderLocks p : byProvider.values()) {
            for (Kind kind : kinds) {
                for (ConcurrentHashMap<String, ModelLockout> conns : p.map(kind).values()) {
                    for (ModelLockout e : conns.values()) {
                        if (e.expiresAt() > now) {
                            n++;
                        }
                    }
                }
            }
        }
        return n;
    }

    /**
     * Whether a connection has any lockout in force.
     *
     * @param connectionId the connection id
     * @return true when at least one of its lockouts is unexpired and lockout is enabled (a scan of
     *     the key models; not for the hot path)
     */
    public boolean hasAny(String connectionId) {
        Kind[] kinds = visibleKinds();
        long now = clock.millis();
        for (ProviderLocks p : byProvider.values()) {
            for (Kind kind : kinds) {
                for (ConcurrentHashMap<String, ModelLockout> conns : p.map(kind).values()) {
                    ModelLockout e = conns.get(connectionId);
                    if (e != null && e.expiresAt() > now) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Entries held, in force or inside their escalation window; for tests of the memory bound. */
    /** The kinds in force: all while lockout is enabled, else only RQ-4's. */
    private Kind[] visibleKinds() {
        return settings.get().modelLockout().enabled() ? Kind.ALL : Kind.ALWAYS_ON;
    }

    /**
     * RQ-4: a structured Google {@code RetryInfo} delay too long for the connection's queue locks
     * the model on that connection for the delay (at most {@link #RETRY_INFO_MAX_MS}), whether or not
     * lockout is enabled; the name is matched exactly (case-insensitively). A longer lock already in
     * force is kept.
     *
     * @param provider the provider id
     * @param connectionId the connection
     * @param model the model name to lock (the upstream model, or the client's alias of it)
     * @param reason the failure's reason
     * @param delayMs the announced delay
     * @return the lockout in force
     */
    public ModelLockout lockForRetryInfo(String provider, String connectionId, String model, FailureReason reason, long delayMs) {
        long now = clock.millis();
        long until = LockoutPolicy.saturatedAdd(now, Math.min(Math.max(delayMs, 1), RETRY_INFO_MAX_MS));
        String key = model.toLowerCase(Locale.ROOT);
        ModelLockout[] result = new ModelLockout[1];
        byProvider.computeIfAbsent(provider, id -> new ProviderLocks()).retryInfo.compute(key, (k, conns) -> {
            if (conns == null) {
                conns = new ConcurrentHashMap<>(4);
            }
            ModelLockout prev = conns.get(connectionId);
            ModelLockout next = prev != null && prev.expiresAt() >= until ? prev
                    : new ModelLockout(provider, connectionId, key, LockScope.EXACT, reason, now, until, 1);
            if (conns.put(connectionId, next) == null) {
                stored.incrementAndGet();
            }
            result[0] = next;
            return conns;
        });
        return result[0];
    }

    int storedEntries() {
        return stored.get();
    }

    // ------------------------------------------------------------------ internals

    private static boolean isNotFound(FailureReason reason, int status) {
        return status == 404 || reason == FailureReason.NOT_FOUND || reason == FailureReason.NOT_FOUND_LOCAL;
    }

    /** A read met an entry past its window: drop exactly that entry, and the key once it is empty. */
    private void dropStale(ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map, String key,
            ConcurrentHashMap<String, ModelLockout> conns, String connectionId, ModelLockout e) {
        if (removeEntry(conns, connectionId, e) && conns.isEmpty()) {
            map.computeIfPresent(key, DROP_IF_EMPTY);
        }
    }

    /** Removes one entry if it is still {@code e}, keeping the stored count exact. */
    private boolean removeEntry(ConcurrentHashMap<String, ModelLockout> conns, String connectionId, ModelLockout e) {
        if (conns.remove(connectionId, e)) {
            stored.decrementAndGet();
            return true;
        }
        return false;
    }

    /** Halves one key's count on one connection; deletes it at 0. */
    private void decay(ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map, String key, String connectionId) {
        ConcurrentHashMap<String, ModelLockout> seen = map.get(key);
        if (seen == null || !seen.containsKey(connectionId)) {
            return; // the common case after a success: nothing to decay, nothing allocated
        }
        map.computeIfPresent(key, (k, conns) -> {
            ModelLockout e = conns.get(connectionId);
            if (e != null) {
                ModelLockout decayed = LockoutPolicy.decayed(e);
                if (decayed == null) {
                    removeEntry(conns, connectionId, e);
                } else {
                    // replace only if still e: a read may have dropped it as stale meanwhile
                    conns.replace(connectionId, e, decayed);
                }
            }
            return conns.isEmpty() ? null : conns;
        });
    }

    /** Removes one key's entry of one connection; returns 1 when it was in force, else 0. */
    private int remove(ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map, String key, String connectionId,
            long now) {
        int[] unexpired = new int[1];
        map.computeIfPresent(key, (k, conns) -> {
            ModelLockout e = conns.get(connectionId);
            if (e != null && removeEntry(conns, connectionId, e) && e.expiresAt() > now) {
                unexpired[0] = 1;
            }
            return conns.isEmpty() ? null : conns;
        });
        return unexpired[0];
    }

    private void maybeSweep(long now, long base) {
        if (stored.get() <= sweepAbove || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            for (ProviderLocks p : byProvider.values()) {
                for (Kind kind : Kind.ALL) {
                    ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map = p.map(kind);
                    for (String key : map.keySet()) {
                        map.computeIfPresent(key, (k, conns) -> {
                            for (Map.Entry<String, ModelLockout> e : conns.entrySet()) {
                                if (LockoutPolicy.isStale(e.getValue(), now, base)) {
                                    removeEntry(conns, e.getKey(), e.getValue());
                                }
                            }
                            return conns.isEmpty() ? null : conns;
                        });
                    }
                }
            }
            sweepAbove = Math.max(SWEEP_THRESHOLD, stored.get() * 2);
        } finally {
            sweeping.set(false);
        }
    }

    /** Which namespace a key model lives in: a quota family, a (base) model, or an exact model. */
    private enum Kind {
        FAMILY, MODEL, EXACT,
        /** RQ-4: a structured Google RetryInfo too long to queue for; in force even with lockout disabled. */
        RETRY_INFO;

        static final Kind[] ALL = values();
        static final Kind[] ALWAYS_ON = {RETRY_INFO};
    }

    /** One provider's lockouts, model first: per kind, key model → connection id → lockout. */
    private static final class ProviderLocks {
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> family = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> model = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> exact = new ConcurrentHashMap<>();
        final ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> retryInfo = new ConcurrentHashMap<>();

        ConcurrentHashMap<String, ConcurrentHashMap<String, ModelLockout>> map(Kind kind) {
            return switch (kind) {
                case FAMILY -> family;
                case MODEL -> model;
                case EXACT -> exact;
                case RETRY_INFO -> retryInfo;
            };
        }
    }
}
