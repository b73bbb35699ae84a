package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.store.BreakerRow;
import dev.sluice.runtime.store.BreakerRowStore;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link BreakerStore} over the store's {@link BreakerRowStore}: the mapping between breaker
 * snapshots and table rows lives here, on the resilience side, so that the store package knows
 * nothing of breakers (the dependency runs one way, resilience → store). A row that no longer
 * makes sense as a breaker (an unknown state or class, a blank key, a negative counter) is
 * skipped with a warning rather than failing start-up (CB-7).
 */
final class RowBackedBreakerStore implements BreakerStore {

    private static final System.Logger LOG = System.getLogger(RowBackedBreakerStore.class.getName());

    private final BreakerRowStore rows;

    RowBackedBreakerStore(BreakerRowStore rows) {
        this.rows = requireNonNull(rows, "rows is null");
    }

    @Override
    public List<BreakerSnapshot> loadAll() {
        List<BreakerSnapshot> out = new ArrayList<>();
        for (BreakerRow row : rows.loadAll()) {
            try {
                out.add(snapshot(row));
            } catch (IllegalArgumentException e) {
                LOG.log(Level.WARNING, "skipping unreadable breaker row " + row.key() + ": " + e.getMessage());
            }
        }
        return out;
    }

    @Override
    public void save(BreakerSnapshot s) {
        requireNonNull(s, "snapshot is null");
        rows.save(row(s));
    }

    @Override
    public void delete(BreakerKey k) {
        requireNonNull(k, "key is null");
        rows.delete(k.provider(), k.host());
    }

    @Override
    public void deleteAll() {
        rows.deleteAll();
    }

    /**
     * @param row a stored row
     * @return its snapshot
     * @throws IllegalArgumentException when the row is no valid breaker
     */
    static BreakerSnapshot snapshot(BreakerRow row) {
        return BreakerSnapshot.builder(new BreakerKey(row.provider(), row.host()), BreakerState.valueOf(row.state()))
                .providerClass(row.providerClass() == null ? null : ProviderClass.fromWireName(row.providerClass()))
                .failureCount(row.failureCount()).openCycles(row.openCycles()).openedAt(row.openedAt())
                .lastFailure(row.lastFailureAt(), row.lastFailureKind())
                .consecutiveSuccesses(row.consecutiveSuccesses()).updatedAt(row.updatedAt()).build();
    }

    /**
     * @param s a snapshot
     * @return its row
     */
    static BreakerRow row(BreakerSnapshot s) {
        return new BreakerRow(s.key().provider(), s.key().host(),
                s.providerClass() == null ? null : s.providerClass().wireName(), s.state().name(), s.failureCount(),
                s.openCycles(), s.openedAt(), s.lastFailureAt(), s.lastFailureKind(), s.consecutiveSuccesses(),
                s.updatedAt());
    }
}
