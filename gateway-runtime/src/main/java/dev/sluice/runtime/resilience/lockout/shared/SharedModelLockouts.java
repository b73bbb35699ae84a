package dev.sluice.runtime.resilience.lockout.shared;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.lockout.LockoutFailure;
import dev.sluice.runtime.resilience.lockout.LockoutKind;
import dev.sluice.runtime.resilience.lockout.LockoutListener;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Shared mode of model lockout (NF-6), a decorator over one instance's lockouts: every lock this
 * instance puts in force is announced on the {@link LockoutBoard} for as long as it has left, and a
 * lock a success's decay ends early is withdrawn there (both heard through the local table's
 * {@link LockoutListener}, right after the key's write); a request's query also asks the board's
 * announcements for the connections this instance's own locks do not block; an operator's clear of
 * a model or a connection withdraws the announcements too. The lockouts themselves, with their
 * counts, escalation and decay, stay the memory of the instance that saw the failures.
 */
public final class SharedModelLockouts implements ModelLockouts, LockoutListener {

    private final ModelLockouts local;
    private final LockoutBoard board;
    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;

    private SharedModelLockouts(ModelLockouts local, LockoutBoard board, InstantSource clock, Supplier<ResilienceSettings> settings) {
        this.local = requireNonNull(local, "local is null");
        this.board = requireNonNull(board, "board is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    /**
     * Shares a local lockout table: becomes its listener.
     *
     * @param local this instance's lockouts, with no listener yet
     * @param board where locks are announced to the other instances
     * @param clock the clock (an announced lock's time left is counted from it)
     * @param settings the current settings (which slots a request asks depends on the master switch)
     * @return the shared lockouts
     * @throws IllegalStateException when {@code local} has a listener already
     */
    public static ModelLockouts over(ModelLockouts local, LockoutBoard board, InstantSource clock, Supplier<ResilienceSettings> settings) {
        SharedModelLockouts shared = new SharedModelLockouts(local, board, clock, settings);
        local.listen(shared);
        return shared;
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

    /** NF-6: the other instances hold the model on the connection for as long as the lock has left. */
    @Override
    public void inForce(LockoutKind kind, ModelLockout lock, long now) {
        board.locked(lock.connectionId(), slot(kind, lock.model()),
                new LockoutBoard.Lock(lock.model(), lock.scope(), lock.reason(), lock.expiresAt() - now));
    }

    /** NF-6: a lock the decay ended before its timer no longer blocks the other instances either. */
    @Override
    public void endedEarly(LockoutKind kind, ModelLockout lock, long now) {
        board.cleared(lock.connectionId(), List.of(slot(kind, lock.model())));
    }

    /** The local table is heard by this decorator; nothing else listens. */
    @Override
    public void listen(LockoutListener listener) {
        throw new IllegalStateException("shared lockouts are listened to by their board");
    }

    @Override
    public ModelLockout recordFailure(LockoutFailure f) {
        return local.recordFailure(f);
    }

    @Override
    public ModelLockout lockForRetryInfo(String provider, String connectionId, String model, FailureReason reason, long delayMs) {
        return local.lockForRetryInfo(provider, connectionId, model, reason, delayMs);
    }

    /** This instance's own locks first; for a connection they do not block, the board's announcements (its mirror). */
    @Override
    public Query query(String provider, String model, String family) {
        Query own = local.query(provider, model, family);
        String exactKey = model.toLowerCase(Locale.ROOT);
        List<String> slots = !settings.get().modelLockout().enabled()
                ? List.of(slot(LockoutKind.RETRY_INFO, exactKey))
                : family == null
                        ? List.of(slot(LockoutKind.MODEL, model), slot(LockoutKind.EXACT, exactKey), slot(LockoutKind.RETRY_INFO, exactKey))
                        : List.of(slot(LockoutKind.FAMILY, family), slot(LockoutKind.MODEL, model), slot(LockoutKind.EXACT, exactKey),
                                slot(LockoutKind.RETRY_INFO, exactKey));
        return new SharedLockoutQuery(own, board, clock, provider, slots);
    }

    @Override
    public void onSuccess(String provider, String connectionId, String model, String family) {
        local.onSuccess(provider, connectionId, model, family);
    }

    @Override
    public List<ModelLockout> active() {
        return local.active();
    }

    /** Withdraws every slot the key model may name on the board, then clears this instance's own. */
    @Override
    public boolean clear(String provider, String connectionId, String model) {
        String exactKey = model.toLowerCase(Locale.ROOT);
        List<String> slots = List.of(slot(LockoutKind.FAMILY, model), slot(LockoutKind.MODEL, model),
                slot(LockoutKind.EXACT, exactKey), slot(LockoutKind.RETRY_INFO, exactKey));
        boolean announced = board.find(connectionId, slots) != null;
        board.cleared(connectionId, slots);
        return local.clear(provider, connectionId, model) | announced;
    }

    @Override
    public int clearConnection(String connectionId) {
        board.clearedConnection(connectionId);
        return local.clearConnection(connectionId);
    }

    @Override
    public int clearAll() {
        return local.clearAll();
    }

    @Override
    public int activeCount() {
        return local.activeCount();
    }

    @Override
    public boolean hasAny(String connectionId) {
        return local.hasAny(connectionId);
    }

    /** Another instance's clear reaches this instance's table; the board's keys are the clearing instance's business. */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        local.onClusterEvent(event, now);
    }
}
