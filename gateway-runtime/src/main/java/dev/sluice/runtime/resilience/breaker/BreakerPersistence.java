package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * The breakers' side of persistence (SPEC CB-7): what survives a restart is read once, at start-up;
 * afterwards every write is best effort. A database hiccup is logged and otherwise ignored, since
 * failing a request because its breaker's row could not be written would turn a storage problem
 * into an outage; memory stays the truth until the next write succeeds.
 */
final class BreakerPersistence {

    /** Breaker decisions log under one name, whichever class makes them, so log settings keep working. */
    private static final System.Logger LOG = System.getLogger(CircuitBreakers.class.getName());

    private final BreakerStore store;

    BreakerPersistence(BreakerStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    /**
     * Every persisted breaker. Not best effort: a store that cannot be read fails start-up rather
     * than silently forgetting open breakers.
     *
     * @return the snapshots to restore
     */
    List<BreakerSnapshot> restore() {
        return store.loadAll();
    }

    /** @param s the breaker's new snapshot, replacing its row */
    void save(BreakerSnapshot s) {
        try {
            store.save(s);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot persist breaker " + s.key() + ": " + e.getMessage());
        }
    }

    /** @param key a forgotten breaker whose row goes */
    void delete(BreakerKey key) {
        try {
            store.delete(key);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot delete persisted breaker " + key + ": " + e.getMessage());
        }
    }

    /** Deletes every row (every breaker was reset). */
    void deleteAll() {
        try {
            store.deleteAll();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot delete persisted breakers: " + e.getMessage());
        }
    }
}
