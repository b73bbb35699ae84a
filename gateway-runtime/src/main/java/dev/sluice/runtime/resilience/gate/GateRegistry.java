package dev.sluice.runtime.resilience.gate;

import java.time.InstantSource;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The gates of every connection, made on first use, and the ids of deleted connections. A deleted
 * connection's id is kept as a tombstone (ids are never reused; a few bytes each) so that requests
 * still in flight on it cannot bring its gate back for the life of the process.
 */
final class GateRegistry {

    private final InstantSource clock;
    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** Deleted connections. */
    private final Set<String> forgotten = ConcurrentHashMap.newKeySet();

    GateRegistry(InstantSource clock) {
        this.clock = clock;
    }

    /** The connection's gate, or null when it has none. */
    Gate find(String connectionId) {
        return gates.get(connectionId);
    }

    /**
     * The gate of a connection, made on first use — except for a deleted connection, whose
     * requests still in flight get a gate of their own that is not kept.
     */
    Gate of(String connectionId) {
        Gate g = gates.get(connectionId);
        if (g != null) {
            return g;
        }
        return forgotten.contains(connectionId) ? new Gate(clock) : gates.computeIfAbsent(connectionId, k -> new Gate(clock));
    }

    /** Drops a deleted connection's gate for good. */
    void forget(String connectionId) {
        forgotten.add(connectionId);
        gates.remove(connectionId);
    }

    /** Every kept gate, with its connection id. */
    void forEach(BiConsumer<String, Gate> action) {
        gates.forEach(action);
    }
}
