package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.HalfOpen;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Move;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers.Admission;
import java.lang.System.Logger.Level;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One breaker in the registry: its current {@link BreakerStatus} and the lock that orders its
 * changes. A change is checked against {@link BreakerTransition}, installed and persisted while
 * {@link #lock} is held, so rows are written in the order the changes happen; the status is
 * volatile so that the common case (a {@code CLOSED} breaker asked whether traffic may flow) can
 * read it without the lock.
 */
final class BreakerCell {

    /** Breaker decisions log under one name, whichever class makes them, so log settings keep working. */
    private static final System.Logger LOG = System.getLogger(CircuitBreakers.class.getName());

    /** Held for a change and its persistence: microseconds, plus one row write. */
    final ReentrantLock lock = new ReentrantLock();

    private final BreakerKey key;
    private final BreakerPersistence persistence;
    /** Written under {@link #lock}; read without it only for the lock-free fast paths. */
    private volatile BreakerStatus status;
    /** Epoch ms of the last persisted change (the registry evicts the least recently changed first). */
    private volatile long updatedAt;
    /** The class callers last named (selects the profile for views); persisted with the next change. */
    volatile ProviderClass cls;
    /**
     * Until when a dedupe entry of this breaker may still be in its window; lets a success skip
     * the dedupe memory when nothing of this breaker can be deduplicated.
     */
    volatile long dedupeUntil = Long.MIN_VALUE;
    /** Set under {@link #lock} when evicted or reset: a caller that finds it looks the key up again. */
    boolean removed;

    private BreakerCell(BreakerKey key, BreakerStatus status, ProviderClass cls, long updatedAt,
            BreakerPersistence persistence) {
        this.key = requireNonNull(key, "key is null");
        this.status = requireNonNull(status, "status is null");
        this.cls = cls;
        this.updatedAt = updatedAt;
        this.persistence = requireNonNull(persistence, "persistence is null");
    }

    /**
     * A breaker with no history; nothing is written until its first change.
     *
     * @param key the breaker
     * @param cls the class of the caller that created it
     * @param now epoch ms
     * @param persistence where its changes go
     * @return the cell
     */
    static BreakerCell pristine(BreakerKey key, ProviderClass cls, long now, BreakerPersistence persistence) {
        return new BreakerCell(key, new BreakerStatus.Closed(BreakerStatus.History.NONE), cls, now, persistence);
    }

    /**
     * A breaker as persisted (CB-7).
     *
     * @param s its snapshot
     * @param persistence where its changes go
     * @return the cell
     */
    static BreakerCell restored(BreakerSnapshot s, BreakerPersistence persistence) {
        return new BreakerCell(s.key(), BreakerStatus.of(s), s.providerClass(), s.updatedAt(), persistence);
    }

    BreakerKey key() {
        return key;
    }

    BreakerStatus status() {
        return status;
    }

    long updatedAt() {
        return updatedAt;
    }

    /** @return true when forgetting this breaker loses no evidence ({@code CLOSED}, no failures) */
    boolean idle() {
        return status instanceof BreakerStatus.Closed c && c.idle();
    }

    /**
     * Applies the changes that time alone makes (CB-6): the open period passing, a stale
     * {@code DEGRADED}, and the release of a half-open probe whose lease ran out. Caller holds
     * {@link #lock}.
     *
     * @param p the profile
     * @param now epoch ms
     */
    void elapse(BreakerProfile p, long now) {
        BreakerStatus s = status;
        if (s instanceof HalfOpen h) {
            if (h.leaseExpired(p, now)) {
                release(h, "probe lease expired");
            }
            return;
        }
        Move m = s.elapse(p, now);
        if (m != null) {
            move(m, cls, now);
        }
    }

    /**
     * Installs the next status and persists it. Caller holds {@link #lock}.
     *
     * @param m the move; null changes nothing
     * @param persistedClass the class written with the row
     * @param now epoch ms of the change
     * @throws IllegalStateException when {@link BreakerTransition} has no such move; nothing changes then
     */
    void move(Move m, ProviderClass persistedClass, long now) {
        if (m == null) {
            return;
        }
        BreakerState from = status.state();
        BreakerState to = m.to().state();
        if (from != to) {
            try {
                BreakerTransition.between(from, to);
            } catch (IllegalStateException e) {
                throw new IllegalStateException(e.getMessage() + " for " + key, e);
            }
        }
        status = m.to();
        updatedAt = now;
        if (from != to) {
            Level level = to == BreakerState.OPEN || from == BreakerState.OPEN ? Level.INFO : Level.DEBUG;
            LOG.log(level, () -> "breaker " + key + " " + from + " -> " + to + ": " + m.why());
        }
        persistence.save(m.to().toSnapshot(key, persistedClass, now));
    }

    /**
     * May an attempt go upstream now? {@code HALF_OPEN} with a free probe and {@code claim}: a
     * fresh probe token, whose claim is held in the status but never persisted (a restored
     * breaker has no probe in flight). Applies {@link #elapse} first; caller holds {@link #lock}.
     *
     * @param p the profile
     * @param claim whether to claim a free half-open probe (false only asks)
     * @param now epoch ms
     * @return the admission
     */
    Admission admit(BreakerProfile p, boolean claim, long now) {
        elapse(p, now);
        return switch (status) {
            case BreakerStatus.Closed s -> Admission.ADMITTED;
            case BreakerStatus.Degraded s -> Admission.ADMITTED;
            case BreakerStatus.Open s -> Admission.REFUSED;
            case HalfOpen h -> {
                if (h.probe() != null) {
                    yield Admission.REFUSED;
                }
                if (!claim) {
                    yield Admission.ADMITTED;
                }
                Admission probe = Admission.newProbe();
                status = h.claimedBy(probe, now);
                LOG.log(Level.DEBUG, () -> "breaker " + key + " half-open probe claimed");
                yield probe;
            }
        };
    }

    /**
     * The breaker now, for the admin API (AD-2), after lazy recovery: applies {@link #elapse}
     * first; caller holds {@link #lock}.
     *
     * @param p the profile
     * @param now epoch ms
     * @return the view
     */
    BreakerView view(BreakerProfile p, long now) {
        elapse(p, now);
        BreakerStatus.History h = status.history();
        return new BreakerView(key, status.state(), h.failureCount(), h.lastFailureAt(), status.retryAfterMs(p, now),
                h.openCycles(), h.lastFailureKind());
    }

    /**
     * Frees the half-open probe if {@code token} holds it; a straggler or an older probe whose
     * lease expired holds nothing and changes nothing. Caller holds {@link #lock}.
     *
     * @param token the admission an attempt got
     * @param why logged
     */
    void releaseIfHeldBy(Admission token, String why) {
        if (status instanceof HalfOpen h && h.probe() == token) {
            release(h, why);
        }
    }

    private void release(HalfOpen h, String why) {
        status = h.released();
        LOG.log(Level.DEBUG, () -> "breaker " + key + " half-open probe released: " + why);
    }
}
