package dev.sluice.runtime.resilience.lockout;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ModelHolds;
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
 * Model lockout (SPEC §11): one connection stops serving one model, or one quota family of
 * models, while its other models keep working. In memory only (DM-4), driven by the injected clock,
 * without a background thread; settings are read on every call, so changes apply live.
 *
 * <p>This class decides which keys a failure, a success or a request concerns, and is the one entry
 * point for the engine and the admin API. The parts it delegates to:
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
public final class ModelLockouts implements Mechanism {

    /** RQ-4: the longest a RetryInfo lock lasts (24 h). */
    public static final long RETRY_INFO_MAX_MS = RetryInfoLocks.MAX_MS;

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final LockoutTable table = new LockoutTable();
    private final LockoutSweeper sweeper = new LockoutSweeper(table);
    private final RetryInfoLocks retryInfo;
    private final LockoutBoard board;

    /**
     * Creates an empty lockout table that shares nothing.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     */
    public ModelLockouts(InstantSource clock, Supplier<ResilienceSettings> settings) {
        this(clock, settings, LockoutBoard.NONE);
    }

    /**
     * Creates an empty lockout table.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     * @param board where locks are announced to the other instances ({@link LockoutBoard#NONE}: nowhere)
     */
    public ModelLockouts(InstantSource clock, Supplier<ResilienceSettings> settings, LockoutBoard board) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.board = requireNonNull(board, "board is null");
        this.retryInfo = new RetryInfoLocks(table, clock);
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
        return LockoutKey.resolveScope(status, explicit);
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
        requireNonNull(f.provider(), "provider is null");
        requireNonNull(f.connectionId(), "connectionId is null");
        requireNonNull(f.model(), "model is null");
        requireNonNull(f.reason(), "reason is null");
        LockoutKey key = LockoutKey.of(f);
        long now = clock.millis();
        ModelLockout locked = table.update(table.getOrCreate(f.provider()), key.kind(), key.model(), f.connectionId(),
                prev -> LockoutPolicy.next(prev, s, f, key.model(), key.scope(), now));
        sweeper.afterWrite(now, s.baseCooldownMs());
        announce(key.kind(), locked, now);
        return locked;
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
        ModelLockout locked = retryInfo.lock(provider, connectionId, model, reason, delayMs);
        announce(LockoutKind.RETRY_INFO, locked, clock.millis());
        return locked;
    }

    /** NF-6: tells the other instances of a lock in force (a no-op with {@link LockoutBoard#NONE}). */
    private void announce(LockoutKind kind, ModelLockout locked, long now) {
        if (locked != null && board.shared() && locked.expiresAt() > now) {
            board.locked(locked.connectionId(), slot(kind, locked.model()),
                    new LockoutBoard.Lock(locked.model(), locked.scope(), locked.reason(), locked.expiresAt() - now));
        }
    }

    /** The board's name of a key model in one namespace. */
    static String slot(LockoutKind kind, String keyModel) {
        return switch (kind) {
            case FAMILY -> "family:";
            case MODEL -> "model:";
            case EXACT -> "exact:";
            case RETRY_INFO -> "retry:";
        } + keyModel;
    }

    /**
     * The lockouts that may concern one model in one request (NF-3): its family, model, exact and
     * RetryInfo connection maps are read once, with the settings and the clock; then
     * {@link Query#blocking} answers per connection. When nothing of the model is locked (or only
     * ordinary locks while lockout is disabled), the answer is a shared empty query that costs
     * nothing per connection.
     *
     * @param provider the provider id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the query
     */
    public Query query(String provider, String model, String family) {
        Query local = localQuery(provider, model, family);
        if (!board.shared()) {
            return local;
        }
        String exactKey = model.toLowerCase(Locale.ROOT);
        List<String> slots = !settings.get().modelLockout().enabled()
                ? List.of(slot(LockoutKind.RETRY_INFO, exactKey))
                : family == null
                        ? List.of(slot(LockoutKind.MODEL, model), slot(LockoutKind.EXACT, exactKey), slot(LockoutKind.RETRY_INFO, exactKey))
                        : List.of(slot(LockoutKind.FAMILY, family), slot(LockoutKind.MODEL, model), slot(LockoutKind.EXACT, exactKey),
                                slot(LockoutKind.RETRY_INFO, exactKey));
        return new SharedLockoutQuery(local, board, clock, provider, slots);
    }

    private Query localQuery(String provider, String model, String family) {
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

    /**
     * One request's view of the lockouts of its model; see {@link #query}. Cheap to ask per
     * connection, and may be shared by the threads of one request. A lock recorded after it was
     * made may be missed by this one request, never by later ones.
     */
    public sealed interface Query extends ModelHolds permits LockoutQuery, SharedLockoutQuery {
        /** The shared empty query: nothing of the model is locked (or lockout is off). */
        Query NONE = LockoutQuery.NONE;

        /**
         * The lockout that blocks this model on a connection at the time the query was made: of
         * the locks in force, the one that ends last.
         *
         * @param connectionId the connection
         * @return the blocking lockout, or null
         */
        ModelLockout blocking(String connectionId);

        /**
         * The lockout that blocks this model on a connection at a given time (for a walk that
         * outlives the moment the query was made).
         *
         * @param connectionId the connection
         * @param atMs the time, epoch ms
         * @return the blocking lockout, or null
         */
        ModelLockout blocking(String connectionId, long atMs);
    }

    /**
     * A query's hold check (both kinds of query answer it so; no default method in {@link Query},
     * which would initialise it with {@link LockoutQuery} and leave {@link Query#NONE} null).
     */
    static boolean holds(Query query, HoldCheck check) {
        ModelLockout lock = query.blocking(check.connection().id(), check.now());
        return lock != null && check.hold(Exclusion.Reason.MODEL_LOCKOUT, Math.max(1, lock.expiresAt() - check.now()), lock.reason());
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
        ProviderLocks p = table.get(provider);
        if (p == null) {
            return;
        }
        long now = clock.millis();
        if (family != null) {
            withdraw(connectionId, LockoutKind.FAMILY, table.decay(p, LockoutKind.FAMILY, family, connectionId), now);
        }
        withdraw(connectionId, LockoutKind.MODEL, table.decay(p, LockoutKind.MODEL, model, connectionId), now);
        withdraw(connectionId, LockoutKind.EXACT, table.decay(p, LockoutKind.EXACT, model.toLowerCase(Locale.ROOT), connectionId), now);
    }

    /** NF-6: a lock the decay ended before its timer no longer blocks the other instances either. */
    private void withdraw(String connectionId, LockoutKind kind, ModelLockout ended, long now) {
        if (ended != null && board.shared() && ended.expiresAt() > now) {
            board.cleared(connectionId, List.of(slot(kind, ended.model())));
        }
    }

    /**
     * The lockouts in force (ML-5 listing), soonest to end first.
     *
     * @return unexpired lockouts sorted by {@code expiresAt}; empty when lockout is disabled
     */
    public List<ModelLockout> active() {
        List<ModelLockout> out = table.inForce(visibleKinds(), clock.millis());
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
     * @return true when an unexpired lockout was removed, here or from the shared board (another
     *     instance's)
     */
    public boolean clear(String provider, String connectionId, String model) {
        String exactKey = model.toLowerCase(Locale.ROOT);
        boolean shared = false;
        if (board.shared()) {
            List<String> slots = List.of(slot(LockoutKind.FAMILY, model), slot(LockoutKind.MODEL, model),
                    slot(LockoutKind.EXACT, exactKey), slot(LockoutKind.RETRY_INFO, exactKey));
            shared = board.find(connectionId, slots) != null;
            board.cleared(connectionId, slots);
        }
        return removeModel(provider, connectionId, model) | shared;
    }

    /** {@link #clear} on this instance's table only. */
    private boolean removeModel(String provider, String connectionId, String model) {
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

    /**
     * Removes every lockout of a connection (e.g. when an operator clears its cooldown). Scans the
     * key models.
     *
     * @param connectionId the connection id
     * @return the number of unexpired lockouts removed
     */
    public int clearConnection(String connectionId) {
        if (board.shared()) {
            board.clearedConnection(connectionId);
        }
        return removeConnection(connectionId);
    }

    /** {@link #clearConnection} on this instance's table only. */
    private int removeConnection(String connectionId) {
        return table.removeConnection(connectionId, clock.millis());
    }

    /** The request's model holds were read once per request ({@link #query}); the check asks them. */
    @Override
    public boolean holds(HoldCheck check) {
        return check.modelHolds().holds(check);
    }

    /**
     * A model- or exact-scoped failure (ML-1) locks the model when its status is in
     * {@code modelLockout.errorCodes}; a model-access rule's lock is stored as "forbidden" (ER-4).
     * Taken in the first pass, so that the connection cooldown knows whether a lock took it.
     */
    @Override
    public void take(FailedCandidate failed) {
        LockScope scope = failed.lockScope();
        if (!failed.concernsTheConnection() || (scope != LockScope.MODEL && scope != LockScope.EXACT)) {
            return;
        }
        Candidate c = failed.candidate();
        var v = failed.verdict();
        FailureReason lockReason = v.ruleScope() == LockScope.MODEL && v.reason() == FailureReason.AUTH_ERROR
                ? FailureReason.FORBIDDEN : v.reason();
        ModelLockout locked = recordFailure(LockoutFailure.builder(c.provider(), c.connection().id(), c.model())
                .family(c.family()).scope(scope).failure(lockReason, v.status())
                .hint(v.retryAfterMs(), v.hintSource() != null && v.hintSource().authoritative())
                .declaredCooldownMs(v.cooldownMs()).build());
        if (locked != null) {
            failed.modelLocked();
        }
    }

    @Override
    public void onSuccess(Candidate served) {
        onSuccess(served.provider(), served.connection().id(), served.model(), served.family());
    }

    /** Another instance cleared a connection or one model of it (and the shared keys): this table forgets them too. */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        switch (event) {
            case ClusterEvent.ConnectionCleared c -> removeConnection(c.connectionId());
            case ClusterEvent.ModelCleared m -> removeModel(m.provider(), m.connectionId(), m.model());
            default -> {
            }
        }
    }

    /**
     * Removes every lockout ({@code POST /api/resilience/reset}).
     *
     * @return the number of unexpired lockouts removed
     */
    public int clearAll() {
        return table.removeAll(e -> true, clock.millis());
    }

    /**
     * The number of lockouts in force.
     *
     * @return the count (a scan; not for the hot path); 0 when lockout is disabled
     */
    public int activeCount() {
        return table.countInForce(visibleKinds(), clock.millis());
    }

    /**
     * Whether a connection has any lockout in force.
     *
     * @param connectionId the connection id
     * @return true when at least one of its lockouts is unexpired and lockout is enabled (a scan of
     *     the key models; not for the hot path)
     */
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
