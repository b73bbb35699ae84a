package dev.sluice.bench;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.BreakerStore;
import java.util.List;

/** A {@link BreakerStore} that persists nothing: breaker state lives in memory only. */
final class NoOpBreakerStore implements BreakerStore {

    @Override
    public List<BreakerSnapshot> loadAll() {
        return List.of();
    }

    @Override
    public void save(BreakerSnapshot s) {
    }

    @Override
    public void delete(BreakerKey k) {
    }

    @Override
    public void deleteAll() {
    }
}
