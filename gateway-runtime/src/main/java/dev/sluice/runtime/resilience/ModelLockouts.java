package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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
 * lower-cased. {@link #blocking} checks all three key shapes.
 *
 * <p><b>Duration (ML-2).</b> An upstream hint longer than {@code baseCooldownMs} wins (clamped to
 * {@code maxCooldownMs} unless authoritative); else a cooldown the failure declares (clamped to
 * {@code maxCooldownMs}); else {@code base × 2^min(failureCount − 1, maxBackoffSteps)} capped at
 * {@code maxCooldownMs}, or {@code base} when exponential backoff is off. A new lock never shortens a
 * longer one already in force.
 *
 * <p><b>Escalation window (ML-3).</b> A failure is a repeat, and increments {@code failureCount},
 * when {@code now − lastFailureAt ≤ lastCooldownMs + baseCooldownMs}, where {@code lastCooldownMs}
 * is the lock in force after the last failure ({@code expiresAt − lastFailureAt}); that is, when it
 * comes no later than one base cooldown after the previous lock ended. Otherwise the count restarts
 * at 1. The window is the lockout's own base cooldown (OmniRoute uses the breaker's reset timeout,
 * which is not a model-lockout setting). So that the window can be honoured, an entry outlives its
 * lock by {@code baseCooldownMs}: it stops blocking at {@code expiresAt} and is forgotten after the
 * window. A success halves the count on every key of the model and deletes the entry at 0, which
 * ends the lock before its timer.
 *
 * <p><b>Master switch.</b> When {@code modelLockout.enabled} is false nothing is recorded, and
 * entries recorded earlier neither block nor are listed (they come back if the switch is turned on
 * again before they expire).
 *
 * <p><b>Memory.</b> Entries past their escalation window are removed when a read meets them and by
 * a sweep that a write runs once more than {@code max(10 000, 2 × the count after the previous
 * sweep)} entries are stored. Unexpired locks are never dropped, so there is no hard cap: the map
 * holds about twice the number of keys that failed within the last {@code maxCooldownMs +
 * baseCooldownMs} (longer for authoritative hints above the maximum).
 *
 * <p><b>Hot path.</b> Entries are indexed by connection first: {@link #blocking} and
 * {@link #onSuccess} for a connection without entries cost one hash lookup and allocate nothing.
 * Thread-safe: reads are lock-free; writes to one connection are serialised by
 * {@link ConcurrentHashMap#compute}.
 */
public final class ModelLockouts {

    /** Stored entries above which a write sweeps out entries past their escalation window. */
    static final int SWEEP_THRESHOLD = 10_000;

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final ConcurrentHashMap<String, ConnectionLocks> byConnection = new ConcurrentHashMap<>();
    /**
     * NF-3 index, model first: for {@code provider + key model}, the connections that MAY hold a
     * lock on it (a superset of the truth: entries are added after the lock is stored and pruned
     * only after a lookup found nothing, re-added if a lock appeared meanwhile). A request reads
     * its model's sets once and then pays one small-map lookup per connection.
     */
    private final ConcurrentHashMap<String, Set<String>> index = new ConcurrentHashMap<>();
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
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the requested upstream model
     * @param family the model's quota family declared by the provider, or null
     * @param scope the lock scope (resolved with {@link #resolveScope}; null resolves by status)
     * @param reason the failure reason
     * @param status the status that counts against {@code errorCodes}
     * @param hintMs the upstream retry hint in ms, or null
     * @param hintAuthoritative whether the hint may exceed {@code maxCooldownMs}
     * @param declaredCooldownMs a cooldown the failure declares, or null
     * @return the lockout now in force for the key, or null when lockout is disabled or the status
     *     is not one of {@code errorCodes}
     */
    public ModelLockout recordFailure(String provider, String connectionId, String model, String family,
            LockScope scope, FailureReason reason, int status, Long hintMs, boolean hintAuthoritative,
            Long declaredCooldownMs) {
        ModelLockoutSettings s = settings.get().modelLockout();
        if (!s.enabled() || !s.errorCodes().contains(status)) {
            return null;
        }
        requireNonNull(provider, "provider is null");
        requireNonNull(connectionId, "connectionId is null");
        requireNonNull(model, "model is null");
        requireNonNull(reason, "reason is null");
        LockScope resolved = resolveScope(status, scope);
        String keyModel = keyModel(resolved, model, family, reason, status);
        long now = clock.millis();
        ModelLockout[] result = new ModelLockout[1];
        update(connectionId, true, c -> {
            ProviderLocks locks = c.byProvider.computeIfAbsent(provider, p -> new ProviderLocks());
            Map<String, ModelLockout> map = locks.map(resolved);
            ModelLockout prev = map.get(keyModel);
            int count = prev != null && now <= saturatedAdd(prev.expiresAt(), s.baseCooldownMs())
                    ? (prev.failureCount() == Integer.MAX_VALUE ? Integer.MAX_VALUE : prev.failureCount() + 1)
                    : 1;
            long duration = cooldownMs(s, count, hintMs, hintAuthoritative, declaredCooldownMs);
            long expiresAt = saturatedAdd(now, duration);
            if (prev != null && prev.expiresAt() > expiresAt) {
                expiresAt = prev.expiresAt(); // longer wins
            }
            ModelLockout next = new ModelLockout(provider, connectionId, keyModel, resolved, reason, now, expiresAt,
                    count);
            map.put(keyModel, next);
            if (prev == null) {
                stored.incrementAndGet();
            }
            result[0] = next;
        });
        index.computeIfAbsent(indexKey(provider, resolved, keyModel), k -> ConcurrentHashMap.newKeySet()).add(connectionId);
        maybeSweep(now, s.baseCooldownMs());
        return result[0];
    }

    private static String indexKey(String provider, LockScope scope, String keyModel) {
        return provider + (scope == LockScope.EXACT ? "\u0001" : "\u0000") + keyModel;
    }

    /**
     * The lockouts that may concern one model in one request (NF-3): read once per request, then
     * asked per connection. When lockout is disabled or no connection holds a lock on the model, its
     * family or its exact key, the answer is a shared empty query that costs nothing per connection.
     *
     * @param provider the provider id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the query
     */
    public Query query(String provider, String model, String family) {
        if (byConnection.isEmpty() || !settings.get().modelLockout().enabled()) {
            return Query.NONE;
        }
        Set<String> f = family == null ? null : nonEmpty(index.get(indexKey(provider, LockScope.MODEL, family)));
        Set<String> m = model.equals(family) ? null : nonEmpty(index.get(indexKey(provider, LockScope.MODEL, model)));
        Set<String> x = nonEmpty(index.get(indexKey(provider, LockScope.EXACT, model.toLowerCase(Locale.ROOT))));
        return f == null && m == null && x == null ? Query.NONE : new Query(this, provider, model, family, f, m, x);
    }

    private static Set<String> nonEmpty(Set<String> s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** One request's view of the lockouts of its model; see {@link #query}. */
    public static final class Query {
        static final Query NONE = new Query(null, null, null, null, null, null, null);
        private final ModelLockouts owner;
        private final String provider;
        private final String model;
        private final String family;
        private final Set<String> familySet;
        private final Set<String> modelSet;
        private final Set<String> exactSet;

        private Query(ModelLockouts owner, String provider, String model, String family, Set<String> familySet, Set<String> modelSet,
                Set<String> exactSet) {
            this.owner = owner;
            this.provider = provider;
            this.model = model;
            this.family = family;
            this.familySet = familySet;
            this.modelSet = modelSet;
            this.exactSet = exactSet;
        }

        /**
         * The lockout that blocks this model on a connection.
         *
         * @param connectionId the connection
         * @return the blocking lockout, or null
         */
        public ModelLockout blocking(String connectionId) {
            if (owner == null || !(contains(familySet, connectionId) || contains(modelSet, connectionId) || contains(exactSet, connectionId))) {
                return null;
            }
            ModelLockout l = owner.blocking(provider, connectionId, model, family);
            if (l == null) {
                owner.prune(provider, connectionId, model, family);
            }
            return l;
        }

        private static boolean contains(Set<String> s, String id) {
            return s != null && s.contains(id);
        }
    }

    /** Drops index entries of a connection that no longer holds a lock for them (remove, then re-check). */
    private void prune(String provider, String connectionId, String model, String family) {
        ConnectionLocks c = byConnection.get(connectionId);
        ProviderLocks locks = c == null ? null : c.byProvider.get(provider);
        if (family != null) {
            pruneOne(indexKey(provider, LockScope.MODEL, family), connectionId, locks == null ? null : locks.models, family);
        }
        pruneOne(indexKey(provider, LockScope.MODEL, model), connectionId, locks == null ? null : locks.models, model);
        String exact = model.toLowerCase(Locale.ROOT);
        pruneOne(indexKey(provider, LockScope.EXACT, exact), connectionId, locks == null ? null : locks.exact, exact);
    }

    private void pruneOne(String key, String connectionId, Map<String, ModelLockout> map, String keyModel) {
        if (map != null && map.containsKey(keyModel)) {
            return; // stored (perhaps stale, kept for the repeat window): keep the index entry
        }
        Set<String> set = index.get(key);
        if (set != null && set.remove(connectionId)) {
            ConnectionLocks again = byConnection.get(connectionId);
            boolean reappeared = again != null && again.byProvider.values().stream()
                    .anyMatch(l -> l.models.containsKey(keyModel) || l.exact.containsKey(keyModel));
            if (reappeared) {
                set.add(connectionId);
            }
        }
    }

    /**
     * The lockout that blocks a model on a connection: the one of the family key, the model key
     * and the exact key that ends last, if any is in force.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the blocking lockout, or null
     */
    public ModelLockout blocking(String provider, String connectionId, String model, String family) {
        ConnectionLocks c = byConnection.get(connectionId);
        if (c == null) {
            return null;
        }
        ProviderLocks locks = c.byProvider.get(provider);
        if (locks == null) {
            return null;
        }
        ModelLockout f = family == null || locks.models.isEmpty() ? null : locks.models.get(family);
        ModelLockout m = model.equals(family) || locks.models.isEmpty() ? null : locks.models.get(model);
        ModelLockout x = locks.exact.isEmpty() ? null : locks.exact.get(model.toLowerCase(Locale.ROOT));
        if (f == null && m == null && x == null) {
            return null;
        }
        long now = clock.millis();
        ModelLockout best = later(later(later(null, f, now), m, now), x, now);
        ModelLockoutSettings s = settings.get().modelLockout();
        long base = s.baseCooldownMs();
        if (isStale(f, now, base) || isStale(m, now, base) || isStale(x, now, base)) {
            update(connectionId, false, cc -> {
                ProviderLocks l = cc.byProvider.get(provider);
                if (l != null) {
                    stored.addAndGet(-(removeStale(l.models, now, base) + removeStale(l.exact, now, base)));
                }
            });
        }
        return best != null && s.enabled() ? best : null;
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
        ConnectionLocks c = byConnection.get(connectionId);
        if (c == null) {
            return;
        }
        ProviderLocks locks = c.byProvider.get(provider);
        if (locks == null) {
            return;
        }
        String exact = model.toLowerCase(Locale.ROOT);
        boolean sameKey = model.equals(family);
        if (!(family != null && locks.models.containsKey(family)) && !locks.models.containsKey(model)
                && !locks.exact.containsKey(exact)) {
            return;
        }
        update(connectionId, false, cc -> {
            ProviderLocks l = cc.byProvider.get(provider);
            if (l != null) {
                decay(l.models, family);
                if (!sameKey) {
                    decay(l.models, model);
                }
                decay(l.exact, exact);
            }
        });
    }

    /**
     * The lockouts in force (ML-5 listing), soonest to end first.
     *
     * @return unexpired lockouts sorted by {@code expiresAt}; empty when lockout is disabled
     */
    public List<ModelLockout> active() {
        if (!settings.get().modelLockout().enabled()) {
            return List.of();
        }
        long now = clock.millis();
        List<ModelLockout> out = new ArrayList<>();
        for (ConnectionLocks c : byConnection.values()) {
            for (ProviderLocks l : c.byProvider.values()) {
                addUnexpired(out, l.models, now);
                addUnexpired(out, l.exact, now);
            }
        }
        out.sort(Comparator.comparingLong(ModelLockout::expiresAt).thenComparing(ModelLockout::key));
        return List.copyOf(out);
    }

    /**
     * ML-5 {@code DELETE}: re-enables one key model on a connection. The model is matched as a key
     * model: a family name, a model, or (case-insensitively) an exact model.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the key model as listed by {@link #active()}
     * @return true when an unexpired lockout was removed
     */
    public boolean clear(String provider, String connectionId, String model) {
        long now = clock.millis();
        boolean[] removed = new boolean[1];
        update(connectionId, false, c -> {
            ProviderLocks l = c.byProvider.get(provider);
            if (l != null) {
                removed[0] |= remove(l.models, model, now);
                removed[0] |= remove(l.exact, model.toLowerCase(Locale.ROOT), now);
            }
        });
        return removed[0];
    }

    /**
     * Removes every lockout of a connection (e.g. when an operator clears its cooldown).
     *
     * @param connectionId the connection id
     * @return the number of unexpired lockouts removed
     */
    public int clearConnection(String connectionId) {
        ConnectionLocks c = byConnection.remove(connectionId);
        if (c == null) {
            return 0;
        }
        long now = clock.millis();
        int total = 0;
        int unexpired = 0;
        for (ProviderLocks l : c.byProvider.values()) {
            for (Map<String, ModelLockout> map : List.of(l.models, l.exact)) {
                for (ModelLockout e : map.values()) {
                    total++;
                    if (e.expiresAt() > now) {
                        unexpired++;
                    }
                }
            }
        }
        stored.addAndGet(-total);
        return unexpired;
    }

    /**
     * Removes every lockout ({@code POST /api/resilience/reset}).
     *
     * @return the number of unexpired lockouts removed
     */
    public int clearAll() {
        int n = 0;
        for (String connectionId : byConnection.keySet()) {
            n += clearConnection(connectionId);
        }
        return n;
    }

    /**
     * The number of lockouts in force.
     *
     * @return the count (a scan; not for the hot path); 0 when lockout is disabled
     */
    public int activeCount() {
        if (!settings.get().modelLockout().enabled()) {
            return 0;
        }
        long now = clock.millis();
        int n = 0;
        for (ConnectionLocks c : byConnection.values()) {
            n += c.unexpired(now);
        }
        return n;
    }

    /**
     * Whether a connection has any lockout in force.
     *
     * @param connectionId the connection id
     * @return true when at least one of its lockouts is unexpired and lockout is enabled
     */
    public boolean hasAny(String connectionId) {
        ConnectionLocks c = byConnection.get(connectionId);
        return c != null && c.unexpired(clock.millis()) > 0 && settings.get().modelLockout().enabled();
    }

    /** Entries held, in force or inside their escalation window; for tests of the memory bound. */
    int storedEntries() {
        return stored.get();
    }

    // ------------------------------------------------------------------ internals

    /** The ML-2 duration of a failure, before "longer wins". */
    static long cooldownMs(ModelLockoutSettings s, int failureCount, Long hintMs, boolean hintAuthoritative,
            Long declaredCooldownMs) {
        long base = s.baseCooldownMs();
        long max = s.maxCooldownMs();
        if (hintMs != null && hintMs > base) {
            return hintAuthoritative ? hintMs : Math.min(hintMs, max);
        }
        if (declaredCooldownMs != null && declaredCooldownMs > 0) {
            return Math.min(declaredCooldownMs, max);
        }
        if (!s.useExponentialBackoff()) {
            return base;
        }
        int steps = Math.max(0, Math.min(failureCount - 1, s.maxBackoffSteps()));
        long scaled = steps >= 63 || base > (Long.MAX_VALUE >> steps) ? Long.MAX_VALUE : base << steps;
        return Math.min(scaled, max);
    }

    private static String keyModel(LockScope scope, String model, String family, FailureReason reason, int status) {
        if (scope == LockScope.EXACT) {
            return model.toLowerCase(Locale.ROOT);
        }
        boolean notFound = status == 404 || reason == FailureReason.NOT_FOUND || reason == FailureReason.NOT_FOUND_LOCAL;
        return family == null || notFound ? model : family;
    }

    /** Runs a write on one connection's locks, atomically for that connection; drops emptied maps. */
    private void update(String connectionId, boolean create, Consumer<ConnectionLocks> action) {
        byConnection.compute(connectionId, (id, c) -> {
            if (c == null) {
                if (!create) {
                    return null;
                }
                c = new ConnectionLocks();
            }
            action.accept(c);
            c.byProvider.values().removeIf(ProviderLocks::isEmpty);
            return c.byProvider.isEmpty() ? null : c;
        });
    }

    private void maybeSweep(long now, long base) {
        if (stored.get() <= sweepAbove || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            for (String connectionId : byConnection.keySet()) {
                update(connectionId, false, c -> {
                    for (ProviderLocks l : c.byProvider.values()) {
                        stored.addAndGet(-(removeStale(l.models, now, base) + removeStale(l.exact, now, base)));
                    }
                });
            }
            sweepAbove = Math.max(SWEEP_THRESHOLD, stored.get() * 2);
        } finally {
            sweeping.set(false);
        }
    }

    private void decay(Map<String, ModelLockout> map, String key) {
        if (key == null) {
            return;
        }
        ModelLockout e = map.get(key);
        if (e == null) {
            return;
        }
        int halved = e.failureCount() / 2;
        if (halved == 0) {
            map.remove(key);
            stored.decrementAndGet();
        } else {
            map.put(key, new ModelLockout(e.provider(), e.connectionId(), e.model(), e.scope(), e.reason(),
                    e.lockedAt(), e.expiresAt(), halved));
        }
    }

    private boolean remove(Map<String, ModelLockout> map, String key, long now) {
        ModelLockout e = map.remove(key);
        if (e == null) {
            return false;
        }
        stored.decrementAndGet();
        return e.expiresAt() > now;
    }

    private static ModelLockout later(ModelLockout best, ModelLockout e, long now) {
        if (e == null || e.expiresAt() <= now) {
            return best;
        }
        return best == null || e.expiresAt() > best.expiresAt() ? e : best;
    }

    /** Past its escalation window: neither blocks nor counts as a repeat any more. */
    private static boolean isStale(ModelLockout e, long now, long base) {
        return e != null && now > saturatedAdd(e.expiresAt(), base);
    }

    private static int removeStale(Map<String, ModelLockout> map, long now, long base) {
        int n = 0;
        for (Iterator<ModelLockout> it = map.values().iterator(); it.hasNext();) {
            if (isStale(it.next(), now, base)) {
                it.remove();
                n++;
            }
        }
        return n;
    }

    private static void addUnexpired(List<ModelLockout> out, Map<String, ModelLockout> map, long now) {
        for (ModelLockout e : map.values()) {
            if (e.expiresAt() > now) {
                out.add(e);
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
    }

    /** The lockouts of one connection, by provider. */
    private static final class ConnectionLocks {
        final ConcurrentHashMap<String, ProviderLocks> byProvider = new ConcurrentHashMap<>(2);

        int unexpired(long now) {
            int n = 0;
            for (ProviderLocks l : byProvider.values()) {
                n += count(l.models, now) + count(l.exact, now);
            }
            return n;
        }

        private static int count(Map<String, ModelLockout> map, long now) {
            int n = 0;
            for (ModelLockout e : map.values()) {
                if (e.expiresAt() > now) {
                    n++;
                }
            }
            return n;
        }
    }

    /** The lockouts of one provider on one connection: family/model keys and exact keys. */
    private static final class ProviderLocks {
        final ConcurrentHashMap<String, ModelLockout> models = new ConcurrentHashMap<>(4);
        final ConcurrentHashMap<String, ModelLockout> exact = new ConcurrentHashMap<>(4);

        Map<String, ModelLockout> map(LockScope scope) {
            return scope == LockScope.EXACT ? exact : models;
        }

        boolean isEmpty() {
            return models.isEmpty() && exact.isEmpty();
        }
    }
}
