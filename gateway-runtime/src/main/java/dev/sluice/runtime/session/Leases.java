package dev.sluice.runtime.session;

import dev.sluice.runtime.store.LeaseRow;
import dev.sluice.runtime.store.JdbcLeaseStore;
import dev.sluice.runtime.store.StoreException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Exclusive managed-session leases (SPEC SL-1…SL-6): an owner holds one connection, fenced by a
 * generation. States {@code ACTIVE} → {@code RELEASED} (the owner or the admin let go),
 * {@code EXPIRED} (its TTL ran out; applied lazily, on any operation), {@code INVALIDATED} (moved
 * to another connection: a new row with the next generation replaces it). Every change is one
 * database transaction under one lock; the database's unique indexes (one active lease per owner,
 * one per connection) are the last word, so a race or a crash cannot double-book. The active
 * leases are mirrored in memory for the hot path ({@link #heldByOther}, {@link #fenceHolds}).
 */
public final class Leases {

    /** Default time to live. */
    public static final long DEFAULT_TTL_MS = 120_000;
    /** Shortest time to live. */
    public static final long MIN_TTL_MS = 1_000;
    /** Longest time to live. */
    public static final long MAX_TTL_MS = 1_800_000;

    /** The states of a lease. */
    public enum State { ACTIVE, RELEASED, EXPIRED, INVALIDATED }

    private static final System.Logger LOG = System.getLogger(Leases.class.getName());

    /** What an operation came to. */
    public sealed interface Result {
    }

    /**
     * The owner holds the lease.
     *
     * @param lease the active lease
     * @param reused an acquire found the owner's active lease and renewed it
     * @param moved the lease moved to another connection (a new generation)
     */
    public record Held(LeaseRow lease, boolean reused, boolean moved) implements Result {
    }

    /**
     * The lease ended (a release, or asked about an ended one).
     *
     * @param lease the row
     */
    public record Ended(LeaseRow lease) implements Result {
    }

    /**
     * Every eligible connection is held by other owners (SL-5).
     *
     * @param retryAfterSeconds 1–120, from the earliest expiry among them
     */
    public record Capacity(long retryAfterSeconds) implements Result {
    }

    /**
     * The generation, key or owner does not match the active lease (409 {@code LEASE_FENCE_STALE}).
     *
     * @param why what the client is told
     */
    public record Stale(String why) implements Result {
    }

    /**
     * No connection can serve the model at all: the normal routing error.
     *
     * @param pick what the search found
     */
    public record Ineligible(LeaseCandidates.NoneEligible pick) implements Result {
    }

    private final JdbcLeaseStore store;
    private final InstantSource clock;
    private final LeaseMirror mirror = new LeaseMirror();

    /**
     * Loads the active leases.
     *
     * @param store the table
     * @param clock the clock
     */
    public Leases(JdbcLeaseStore store, InstantSource clock) {
        this.store = store;
        this.clock = clock;
        mirror.replaceAll(store.active());
    }

    /**
     * Re-reads the active leases whenever another instance announces a lease change, so the hot
     * path's checks follow within about a second.
     *
     * @param feed the change notifications
     */
    public void follow(dev.sluice.runtime.store.ChangeFeed feed) {
        feed.subscribe(JdbcLeaseStore.TOPIC, id -> reload());
    }

    private synchronized void reload() {
        mirror.replaceAll(store.active());
    }

    /**
     * Makes one lease decision. In a database shared by several instances the decision is made
     * under the database's lease lock, on the leases as stored (re-read first): no two instances
     * decide at once, and none decides on a stale mirror. In SQLite this object's monitor suffices.
     */
    private <T> T decide(java.util.function.Supplier<T> decision) {
        return store.serialized(() -> {
            if (store.shared()) {
                mirror.replaceAll(store.active());
            }
            return decision.get();
        });
    }

    /**
     * Clamps a requested time to live (SL-2).
     *
     * @param requested the requested TTL in ms, or null for the default
     * @return the TTL
     */
    public static long ttl(Long requested) {
        return requested == null ? DEFAULT_TTL_MS : Math.max(MIN_TTL_MS, Math.min(MAX_TTL_MS, requested));
    }

    /**
     * Acquires (or re-acquires, renewing) a lease on a connection that can serve the model.
     *
     * @param ownerHash the owner
     * @param keyId the client key
     * @param allowed the key's allowed connections
     * @param model the model
     * @param ttlMs the time to live
     * @param candidates the routing rules
     * @return held, capacity, stale or ineligible
     */
    public synchronized Result acquire(String ownerHash, String keyId, Set<String> allowed, String model, long ttlMs,
            LeaseCandidates candidates) {
        return decide(() -> {
            long now = clock.millis();
            expireDue(now);
            LeaseRow active = mirror.owned(ownerHash);
            if (active != null) {
                if (!active.keyId().equals(keyId)) {
                    return new Stale("This lease owner holds a lease acquired with another key; release it with that key first.");
                }
                // SL-2: the same owner and key reuse the generation; the TTL starts again
                LeaseRow renewed = active.renewed(ttlMs, now);
                write(List.of(renewed));
                return new Held(renewed, true, false);
            }
            return switch (candidates.pick(model, keyId, allowed, ownerHash, null)) {
                case LeaseCandidates.Free f -> {
                    long generation = store.latest(ownerHash).map(r -> r.generation() + 1).orElse(1L);
                    LeaseRow row = new LeaseRow(UUID.randomUUID().toString(), ownerHash, keyId, f.connectionId(), model, generation,
                            State.ACTIVE.name(), null, ttlMs, now, now + ttlMs, now);
                    yield write(List.of(row)) ? new Held(row, false, false) : capacity(List.of(f.connectionId()), now);
                }
                case LeaseCandidates.AllLeased a -> capacity(a.leased(), now);
                case LeaseCandidates.NoneEligible n -> new Ineligible(n);
            };
        });
    }

    /**
     * Renews the owner's active lease of this generation.
     *
     * @param ownerHash the owner
     * @param keyId the client key
     * @param generation the generation the client holds
     * @param ttlMs the new time to live
     * @return held or stale
     */
    public synchronized Result renew(String ownerHash, String keyId, long generation, long ttlMs) {
        return decide(() -> {
            long now = clock.millis();
            expireDue(now);
            LeaseRow active = mirror.owned(ownerHash);
            Stale stale = fence(active, keyId, generation);
            if (stale != null) {
                return stale;
            }
            LeaseRow renewed = active.renewed(ttlMs, now);
            write(List.of(renewed));
            return new Held(renewed, false, false);
        });
    }

    /**
     * Releases the owner's lease of this generation; releasing an ended lease again answers its
     * end (idempotent).
     *
     * @param ownerHash the owner
     * @param keyId the client key
     * @param generation the generation
     * @param reason the client's reason
     * @return ended or stale
     */
    public synchronized Result release(String ownerHash, String keyId, long generation, String reason) {
        return decide(() -> {
            long now = clock.millis();
            expireDue(now);
            Optional<LeaseRow> row = store.find(ownerHash, generation);
            if (row.isEmpty() || !row.get().keyId().equals(keyId)) {
                return new Stale("No lease of generation " + generation + " for this owner and key.");
            }
            if (!State.ACTIVE.name().equals(row.get().state())) {
                return new Ended(row.get());
            }
            LeaseRow ended = row.get().ended(State.RELEASED.name(), reason, now);
            write(List.of(ended));
            return new Ended(ended);
        });
    }

    /**
     * A managed request's claim (SL-3): the owner's active lease, when the generation and the
     * key match; else stale.
     *
     * @param ownerHash the owner
     * @param keyId the authenticated key
     * @param generation the claimed generation
     * @return held or stale
     */
    public synchronized Result claim(String ownerHash, String keyId, long generation) {
        return decide(() -> {
            expireDue(clock.millis());
            LeaseRow active = mirror.owned(ownerHash);
            Stale stale = fence(active, keyId, generation);
            return stale != null ? stale : new Held(active, false, false);
        });
    }

    /**
     * SL-4: a managed request whose leased connection cannot serve its model now (cooling, locked,
     * open breaker, disabled, another provider) moves the lease to a free eligible connection —
     * the old row {@code INVALIDATED}, a new one with the next generation.
     *
     * @param lease the owner's active lease
     * @param model the request's model
     * @param allowed the key's allowed connections
     * @param candidates the routing rules
     * @return held (moved or not), capacity, or ineligible (then the request gets the routing error on its lease)
     */
    public synchronized Result keepServable(LeaseRow lease, String model, Set<String> allowed, LeaseCandidates candidates) {
        return decide(() -> {
            if (candidates.pick(model, lease.keyId(), allowed, lease.ownerHash(), lease.connectionId()) instanceof LeaseCandidates.Free) {
                return new Held(lease, false, false);
            }
            long now = clock.millis();
            LeaseRow active = mirror.owned(lease.ownerHash());
            if (active == null || active.generation() != lease.generation()) {
                return new Stale("The lease changed meanwhile; acquire it again.");
            }
            return switch (candidates.pick(model, lease.keyId(), allowed, lease.ownerHash(), null)) {
                case LeaseCandidates.Free f -> {
                    LeaseRow moved = new LeaseRow(UUID.randomUUID().toString(), lease.ownerHash(), lease.keyId(), f.connectionId(), model,
                            lease.generation() + 1, State.ACTIVE.name(), null, lease.ttlMs(), now, now + lease.ttlMs(), now);
                    if (!write(List.of(lease.ended(State.INVALIDATED.name(), "CONNECTION_INELIGIBLE", now), moved))) {
                        yield capacity(List.of(f.connectionId()), now);
                    }
                    LOG.log(System.Logger.Level.INFO, "lease generation " + lease.generation() + " moved from connection "
                            + lease.connectionId() + " to " + f.connectionId() + " (generation " + moved.generation() + ")");
                    yield new Held(moved, false, true);
                }
                case LeaseCandidates.AllLeased a -> capacity(a.leased(), now);
                case LeaseCandidates.NoneEligible n -> new Ineligible(n);
            };
        });
    }

    /**
     * Whether another owner's active lease holds a connection.
     *
     * @param connectionId the connection
     * @param ownerHash the asking owner, or null for unmanaged traffic
     * @return true when held by someone else
     */
    public boolean heldByOther(String connectionId, String ownerHash) {
        LeaseRow r = mirror.onConnection(connectionId);
        return r != null && r.expiresAt() > clock.millis() && !r.ownerHash().equals(ownerHash);
    }

    /**
     * SL-3's final dispatch fence.
     *
     * @param ownerHash the owner
     * @param generation the claimed generation
     * @param keyId the authenticated key
     * @param connectionId the connection about to be called
     * @return true when the owner's active lease matches all four
     */
    public boolean fenceHolds(String ownerHash, long generation, String keyId, String connectionId) {
        LeaseRow r = mirror.owned(ownerHash);
        return r != null && r.generation() == generation && r.keyId().equals(keyId) && r.connectionId().equals(connectionId)
                && r.expiresAt() > clock.millis();
    }

    /** @return the active leases (expired ones ended first) */
    public synchronized List<LeaseRow> active() {
        return decide(() -> {
            expireDue(clock.millis());
            List<LeaseRow> out = new ArrayList<>(mirror.all());
            out.sort(java.util.Comparator.comparingLong(LeaseRow::createdAt));
            return out;
        });
    }

    /**
     * The admin releases a lease.
     *
     * @param id the lease id
     * @return the ended lease, or empty when no active lease has this id
     */
    public synchronized Optional<LeaseRow> adminRelease(String id) {
        return decide(() -> {
            expireDue(clock.millis());
            for (LeaseRow r : mirror.all()) {
                if (r.id().equals(id)) {
                    LeaseRow ended = r.ended(State.RELEASED.name(), "ADMIN_RELEASED", clock.millis());
                    write(List.of(ended));
                    return Optional.of(ended);
                }
            }
            return Optional.empty();
        });
    }

    /**
     * Ends the leases of a key that was deleted ({@code MANAGED_KEY_REVOKED}).
     *
     * @param keyId the key
     * @return how many ended
     */
    public synchronized int revokeKey(String keyId) {
        return decide(() -> {
            long now = clock.millis();
            List<LeaseRow> ended = new ArrayList<>();
            for (LeaseRow r : mirror.all()) {
                if (r.keyId().equals(keyId)) {
                    ended.add(r.ended(State.RELEASED.name(), "MANAGED_KEY_REVOKED", now));
                }
            }
            if (!ended.isEmpty()) {
                write(ended);
            }
            return ended.size();
        });
    }

    /** @return how many leases are active */
    public int activeCount() {
        long now = clock.millis();
        return (int) mirror.all().stream().filter(r -> r.expiresAt() > now).count();
    }

    private static Stale fence(LeaseRow active, String keyId, long generation) {
        if (active == null) {
            return new Stale("This owner holds no active lease (it was released, expired or never acquired); acquire it again.");
        }
        if (!active.keyId().equals(keyId)) {
            return new Stale("The lease was acquired with another key.");
        }
        if (active.generation() != generation) {
            return new Stale("Generation " + generation + " is stale: the owner's active lease has generation " + active.generation()
                    + ".");
        }
        return null;
    }

    private Capacity capacity(List<String> leased, long now) {
        long soonest = Long.MAX_VALUE;
        for (String id : leased) {
            LeaseRow r = mirror.onConnection(id);
            if (r != null) {
                soonest = Math.min(soonest, r.expiresAt() - now);
            }
        }
        long seconds = soonest == Long.MAX_VALUE ? 1 : (soonest + 999) / 1000;
        return new Capacity(Math.max(1, Math.min(120, seconds)));
    }

    /** Lazy expiry: every active lease whose TTL ran out ends {@code EXPIRED} ({@code TTL_EXPIRED}). */
    private void expireDue(long now) {
        List<LeaseRow> due = new ArrayList<>();
        for (LeaseRow r : mirror.all()) {
            if (r.expiresAt() <= now) {
                due.add(r.ended(State.EXPIRED.name(), "TTL_EXPIRED", now));
            }
        }
        if (!due.isEmpty()) {
            write(due);
        }
    }

    /**
     * Writes rows (one transaction) and mirrors them; false when the database refused (a unique
     * index: the connection or owner was taken), with nothing changed.
     */
    private boolean write(List<LeaseRow> rows) {
        try {
            store.write(rows);
        } catch (StoreException e) {
            LOG.log(System.Logger.Level.WARNING, "lease write refused: " + e.getMessage());
            return false;
        }
        mirror.apply(rows);
        return true;
    }
}
