package dev.sluice.runtime.telemetry;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The last {@code capacity} values added, overwritten oldest first. Adding is one atomic increment
 * and one array store: no lock for request threads to queue on, nothing allocated. A reader takes
 * a snapshot without stopping writers, so a value being written while it reads may be missing or,
 * if a writer laps the ring during the read, appear out of order; readers sort what they show.
 *
 * @param <T> the values (immutable)
 */
final class Ring<T> {

    private final AtomicReferenceArray<T> slots;
    private final int mask;
    private final AtomicLong next = new AtomicLong();

    /** @param capacity a power of two */
    Ring(int capacity) {
        if (capacity < 1 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two, got " + capacity);
        }
        this.slots = new AtomicReferenceArray<>(capacity);
        this.mask = capacity - 1;
    }

    void add(T value) {
        slots.set((int) (next.getAndIncrement() & mask), value);
    }

    int capacity() {
        return mask + 1;
    }

    /** @return the values held, newest added first, each once */
    List<T> snapshot() {
        long end = next.get();
        long start = Math.max(0, end - capacity());
        List<T> out = new ArrayList<>((int) (end - start));
        Set<T> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (long i = end - 1; i >= start; i--) {
            T v = slots.get((int) (i & mask));
            if (v != null && seen.add(v)) {
                out.add(v);
            }
        }
        return out;
    }
}
