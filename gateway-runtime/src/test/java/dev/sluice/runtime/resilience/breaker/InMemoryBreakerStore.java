package dev.sluice.runtime.resilience.breaker;

import dev.sluice.runtime.resilience.BreakerKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link BreakerStore} in memory that counts writes, for breaker tests. */
public final class InMemoryBreakerStore implements BreakerStore {

    final Map<BreakerKey, BreakerSnapshot> rows = new ConcurrentHashMap<>();
    final AtomicInteger saves = new AtomicInteger();
    volatile boolean failing;

    @Override
    public List<BreakerSnapshot> loadAll() {
        return new ArrayList<>(rows.values());
    }

    @Override
    public void save(BreakerSnapshot s) {
        if (failing) {
            throw new IllegalStateException("disk full");
        }
        saves.incrementAndGet();
        rows.put(s.key(), s);
    }

    @Override
    public void delete(BreakerKey k) {
        if (failing) {
            throw new IllegalStateException("disk full");
        }
        rows.remove(k);
    }

    @Override
    public void deleteAll() {
        if (failing) {
            throw new IllegalStateException("disk full");
        }
        rows.clear();
    }
}
