package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Which breakers exist (SPEC CB-7): one {@link BreakerCell} per {@link BreakerKey}, restored from
 * the store at start-up, created by a key's first counted failure, and forgotten by an operator
 * reset or, past {@link #MAX_BREAKERS}, by eviction of idle ones. Forgetting a breaker also
 * forgets its row and its dedupe entries, so a key without a cell has neither.
 *
 * <p>Lock order: {@link #structure} (creation, eviction, reset) before a cell's lock, never after.
 * A caller that finds a removed cell looks the key up again ({@link #locked}).
 */
final class BreakerRegistry {

    /** See {@link CircuitBreakers#MAX_BREAKERS}. */
    static final int MAX_BREAKERS = 500;

    /** Breaker decisions log under one name, whichever class makes them, so log settings keep working. */
    private static final System.Logger LOG = System.getLogger(CircuitBreakers.class.getName());

    private final InstantSource clock;
    private final BreakerPersistence persistence;
    private final FailureDedupe dedupe;
    private final ConcurrentHashMap<BreakerKey, BreakerCell> cells = new ConcurrentHashMap<>();
    private final ReentrantLock structure = new ReentrantLock();

    /**
     * Creates the registry with every persisted breaker.
     *
     * @param clock the clock
     * @param persistence the rows
     * @param dedupe the dedupe memory, emptied with the breakers it belongs to
     */
    BreakerRegistry(InstantSource clock, BreakerPersistence persistence, FailureDedupe dedupe) {
        this.clock = requireNonNull(clock, "clock is null");
        this.persistence = requireNonNull(persistence, "persistence is null");
        this.dedupe = requireNonNull(dedupe, "dedupe is null");
        for (BreakerSnapshot s : persistence.restore()) {
            cells.put(s.key(), BreakerCell.restored(s, persistence));
        }
    }

    /** @return the cell of {@code key} now, or null; for lock-free fast paths only */
    BreakerCell peek(BreakerKey key) {
        return cells.get(key);
    }

    /**
     * Runs {@code op} on every breaker held now, each under its lock; breakers removed meanwhile are skipped.
     *
     * @param op what to do
     * @param <T> its result
     * @return the results, in no particular order
     */
    <T> List<T> eachLocked(Function<BreakerCell, T> op) {
        List<T> out = new ArrayList<>();
        for (BreakerKey key : cells.keySet()) {
            T v = locked(key, null, op);
            if (v != null) {
                out.add(v);
            }
        }
        return out;
    }

    /** @return breakers held in memory */
    int size() {
        return cells.size();
    }

    /**
     * Runs {@code op} under the cell's lock, retrying when the cell was evicted or reset meanwhile.
     *
     * @param key the breaker
     * @param createAs null: an unknown key yields null; otherwise the class of a cell created for it
     * @param op what to do
     * @param <T> its result
     * @return the result, or null for an unknown key not created
     */
    <T> T locked(BreakerKey key, ProviderClass createAs, Function<BreakerCell, T> op) {
        requireNonNull(key, "key is null");
        while (true) {
            BreakerCell c = cells.get(key);
            if (c == null) {
                if (createAs == null) {
                    return null;
                }
                c = create(key, createAs);
            }
            c.lock.lock();
            try {
                if (!c.removed) {
                    return op.apply(c);
                }
            } finally {
                c.lock.unlock();
            }
        }
    }

    /**
     * Forgets every breaker and deletes every row.
     *
     * @return how many were forgotten
     */
    int reset() {
        structure.lock();
        try {
            int n = 0;
            for (Map.Entry<BreakerKey, BreakerCell> e : cells.entrySet()) {
                BreakerCell c = e.getValue();
                c.lock.lock();
                try {
                    c.removed = true;
                    cells.remove(e.getKey(), c);
                    n++;
                } finally {
                    c.lock.unlock();
                }
            }
            dedupe.clear();
            persistence.deleteAll();
            LOG.log(Level.INFO, "reset " + n + " provider breaker(s)");
            return n;
        } finally {
            structure.unlock();
        }
    }

    /**
     * Forgets every breaker of one provider, on all its hosts, and deletes their rows.
     *
     * @param provider the provider id
     * @return how many were forgotten
     */
    int reset(String provider) {
        structure.lock();
        try {
            int n = 0;
            for (Map.Entry<BreakerKey, BreakerCell> e : cells.entrySet()) {
                if (e.getKey().provider().equals(provider)) {
                    BreakerCell c = e.getValue();
                    c.lock.lock();
                    try {
                        c.removed = true;
                        cells.remove(e.getKey(), c);
                        persistence.delete(e.getKey());
                    } finally {
                        c.lock.unlock();
                    }
                    n++;
                }
            }
            dedupe.forgetProvider(provider);
            LOG.log(Level.INFO, "reset " + n + " breaker(s) of provider " + provider);
            return n;
        } finally {
            structure.unlock();
        }
    }

    private BreakerCell create(BreakerKey key, ProviderClass cls) {
        structure.lock();
        try {
            BreakerCell existing = cells.get(key);
            if (existing != null) {
                return existing;
            }
            if (cells.size() >= MAX_BREAKERS) {
                evictIdle();
            }
            BreakerCell c = BreakerCell.pristine(key, cls, clock.millis(), persistence);
            cells.put(key, c);
            return c;
        } finally {
            structure.unlock();
        }
    }

    /** Evicts idle breakers, least recently changed first, until below the cap; caller holds {@link #structure}. */
    private void evictIdle() {
        List<BreakerCell> idle = new ArrayList<>();
        for (BreakerCell c : cells.values()) {
            if (c.idle()) {
                idle.add(c);
            }
        }
        idle.sort(Comparator.comparingLong(BreakerCell::updatedAt));
        for (BreakerCell c : idle) {
            if (cells.size() < MAX_BREAKERS) {
                return;
            }
            // tryLock: a busy breaker is in use, hence not worth evicting; never wait with structure held.
            if (c.lock.tryLock()) {
                try {
                    if (!c.removed && c.idle()) {
                        c.removed = true;
                        cells.remove(c.key(), c);
                        persistence.delete(c.key());
                        if (c.dedupeUntil > clock.millis()) {
                            dedupe.forgetBreaker(c.key());
                        }
                    }
                } finally {
                    c.lock.unlock();
                }
            }
        }
        // Nothing idle left: the cap is exceeded rather than forgetting a breaker that holds evidence.
    }
}
