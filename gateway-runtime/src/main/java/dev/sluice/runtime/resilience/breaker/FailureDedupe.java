package dev.sluice.runtime.resilience.breaker;

import dev.sluice.runtime.resilience.BreakerKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The breakers' failure dedupe (SPEC CB-4): a connection's failures on one breaker within
 * {@link #WINDOW_MS} of its last counted one count once, so that one bad connection retried in a
 * burst cannot open a provider host on its own. Bounded to {@link #MAX_ENTRIES}; when full, stale
 * entries go first, then the oldest. Thread-safe; the breaker decides when to ask
 * ({@link BreakerStatus#dedupesFailures()}).
 */
final class FailureDedupe {

    /** See {@link CircuitBreakers#DEDUPE_WINDOW_MS}. */
    static final long WINDOW_MS = 5_000;

    /** See {@link CircuitBreakers#DEDUPE_MAX_ENTRIES}. */
    static final int MAX_ENTRIES = 10_000;

    private final ConcurrentHashMap<Entry, Long> lastCounted = new ConcurrentHashMap<>();
    /** One trimmer at a time: concurrent trims would each drop "the oldest" and overshoot. */
    private final ReentrantLock trim = new ReentrantLock();

    /**
     * Whether a failure now repeats this connection's last counted one on this breaker.
     *
     * @param key the breaker
     * @param connectionId the failing connection, or null (never a repeat)
     * @param now epoch ms
     * @return true when the failure must not be counted
     */
    boolean isRepeat(BreakerKey key, String connectionId, long now) {
        if (connectionId == null) {
            return false;
        }
        Long last = lastCounted.get(new Entry(key, connectionId));
        return last != null && now - last < WINDOW_MS;
    }

    /**
     * Remembers a counted failure.
     *
     * @param key the breaker
     * @param connectionId the failing connection (not null)
     * @param now epoch ms
     * @return until when the entry is in its window
     */
    long remember(BreakerKey key, String connectionId, long now) {
        Entry e = new Entry(key, connectionId);
        if (lastCounted.size() >= MAX_ENTRIES && !lastCounted.containsKey(e)) {
            trim(now);
        }
        lastCounted.put(e, now);
        return now + WINDOW_MS;
    }

    /**
     * Forgets one connection's entry: a failure after a success is new evidence, not a repeat.
     *
     * @param key the breaker
     * @param connectionId the connection that succeeded
     */
    void forget(BreakerKey key, String connectionId) {
        lastCounted.remove(new Entry(key, connectionId));
    }

    /** @param key a breaker being forgotten (evicted): its entries go with it */
    void forgetBreaker(BreakerKey key) {
        lastCounted.keySet().removeIf(e -> e.key().equals(key));
    }

    /** @param provider a provider whose breakers were reset */
    void forgetProvider(String provider) {
        lastCounted.keySet().removeIf(e -> e.key().provider().equals(provider));
    }

    /** Forgets everything (every breaker was reset). */
    void clear() {
        lastCounted.clear();
    }

    /** @return entries held (for tests of the bound) */
    int size() {
        return lastCounted.size();
    }

    /** Drops stale entries; when every entry is fresh, drops the oldest until there is room. */
    private void trim(long now) {
        trim.lock();
        try {
            lastCounted.values().removeIf(t -> now - t >= WINDOW_MS);
            if (lastCounted.size() >= MAX_ENTRIES) {
                List<Map.Entry<Entry, Long>> all = new ArrayList<>(lastCounted.entrySet());
                all.sort(Map.Entry.comparingByValue());
                int excess = lastCounted.size() - MAX_ENTRIES + 1;
                for (int i = 0; i < excess && i < all.size(); i++) {
                    lastCounted.remove(all.get(i).getKey(), all.get(i).getValue());
                }
            }
        } finally {
            trim.unlock();
        }
    }

    private record Entry(BreakerKey key, String connectionId) {
    }
}
