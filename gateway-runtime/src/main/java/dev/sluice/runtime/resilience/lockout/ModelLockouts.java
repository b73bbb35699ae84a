package dev.sluice.runtime.resilience.lockout;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ModelHolds;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Supplier;

/**
 * Model lockout (SPEC §11) as the engine and the admin API see it: one connection stops serving one
 * model, or one quota family of models, while its other models keep working. One instance's memory
 * ({@link #local}), or that memory with its locks announced to every instance (NF-6:
 * {@code lockout.shared.SharedModelLockouts}, a decorator beside its board, which hears of this
 * instance's locks through {@link #listen}). The mechanism's part ({@link Mechanism}) is written
 * once here, in terms of the operations, so a decorator only changes the operations it shares.
 */
public interface ModelLockouts extends Mechanism {

    /** RQ-4: the longest a RetryInfo lock lasts (24 h). */
    long RETRY_INFO_MAX_MS = RetryInfoLocks.MAX_MS;

    /**
     * One instance's lockouts, sharing nothing: an empty table.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     * @return the lockouts
     */
    static ModelLockouts local(InstantSource clock, Supplier<ResilienceSettings> settings) {
        return new LocalModelLockouts(clock, settings);
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
    static LockScope resolveScope(int status, LockScope explicit) {
        return LockoutKey.resolveScope(status, explicit);
    }

    /**
     * Tells {@code listener} of every lock this instance's table puts in force or a success ends
     * early, on the thread that changed it (Resilience4j's event publisher, in small). One listener
     * per table, set before it serves; the default hears nothing.
     *
     * @param listener the listener
     * @throws IllegalStateException when a listener is set already
     */
    void listen(LockoutListener listener);

    /**
     * Records a model-scoped failure.
     *
     * @param f the failure (its scope resolved with {@link #resolveScope}; null resolves by status)
     * @return the lockout now in force for the key (the one already in force when the failure is
     *     absorbed), or null when lockout is disabled or the status is not one of {@code errorCodes}
     */
    ModelLockout recordFailure(LockoutFailure f);

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
    ModelLockout lockForRetryInfo(String provider, String connectionId, String model, FailureReason reason, long delayMs);

    /**
     * The lockouts that may concern one model in one request (NF-3): its family, model, exact and
     * RetryInfo connection maps are read once, with the settings and the clock; then
     * {@link Query#blocking} answers per connection. When nothing of the model is locked (or only
     * ordinary locks while lockout is disabled), the local answer is a shared empty query that
     * costs nothing per connection.
     *
     * @param provider the provider id
     * @param model the upstream model
     * @param family its quota family, or null
     * @return the query
     */
    Query query(String provider, String model, String family);

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
    default ModelLockout blocking(String provider, String connectionId, String model, String family) {
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
    void onSuccess(String provider, String connectionId, String model, String family);

    /**
     * The lockouts in force (ML-5 listing), soonest to end first.
     *
     * @return unexpired lockouts sorted by {@code expiresAt}; empty when lockout is disabled
     */
    List<ModelLockout> active();

    /**
     * ML-5 {@code DELETE}: re-enables one key model on a connection. The model is matched as a key
     * model: a family name, a model, or (case-insensitively) an exact model; when a family and a
     * model share the name, both locks are removed.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the key model as listed by {@link #active()}
     * @return true when an unexpired lockout was removed (shared: here or from the board, another
     *     instance's)
     */
    boolean clear(String provider, String connectionId, String model);

    /**
     * Removes every lockout of a connection (e.g. when an operator clears its cooldown). Scans the
     * key models.
     *
     * @param connectionId the connection id
     * @return the number of unexpired lockouts removed on this instance
     */
    int clearConnection(String connectionId);

    /**
     * Removes every lockout ({@code POST /api/resilience/reset}).
     *
     * @return the number of unexpired lockouts removed
     */
    int clearAll();

    /**
     * The number of lockouts in force.
     *
     * @return the count (a scan; not for the hot path); 0 when lockout is disabled
     */
    int activeCount();

    /**
     * Whether a connection has any lockout in force.
     *
     * @param connectionId the connection id
     * @return true when at least one of its lockouts is unexpired and lockout is enabled (a scan of
     *     the key models; not for the hot path)
     */
    boolean hasAny(String connectionId);

    /** The request's model holds were read once per request ({@link #query}); the check asks them. */
    @Override
    default boolean holds(HoldCheck check) {
        return check.modelHolds().holds(check);
    }

    /**
     * A model- or exact-scoped failure (ML-1) locks the model when its status is in
     * {@code modelLockout.errorCodes}; a model-access rule's lock is stored as "forbidden" (ER-4).
     * Taken in the first pass, so that the connection cooldown knows whether a lock took it.
     */
    @Override
    default void take(FailedCandidate failed) {
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
    default void onSuccess(Candidate served) {
        onSuccess(served.provider(), served.connection().id(), served.model(), served.family());
    }

    /**
     * One request's view of the lockouts of its model; see {@link #query}. Cheap to ask per
     * connection, and may be shared by the threads of one request. A lock recorded after it was
     * made may be missed by this one request, never by later ones.
     */
    interface Query extends ModelHolds {
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

        /**
         * A query's hold check, as every kind of query answers it (a static helper, not a default
         * method: a default would initialise {@link Query} with {@link LockoutQuery} and leave
         * {@link #NONE} null).
         *
         * @param query the query
         * @param check the candidate and the answer
         * @return true when a lock holds the candidate's connection back
         */
        static boolean hold(Query query, HoldCheck check) {
            ModelLockout lock = query.blocking(check.connection().id(), check.now());
            return lock != null && check.hold(Exclusion.Reason.MODEL_LOCKOUT, Math.max(1, lock.expiresAt() - check.now()), lock.reason());
        }
    }
}
