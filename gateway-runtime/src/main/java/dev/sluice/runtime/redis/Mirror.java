package dev.sluice.runtime.redis;

import static java.util.Objects.requireNonNull;

import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * This instance's copy of one shared board (issue 26): key → value and the local time it expires,
 * computed from the milliseconds left that a write, an event or a read of Redis gave (so the
 * instances' clocks may disagree). The request path reads only this — a map lookup, no Redis call,
 * nothing allocated; an entry past its expiry reads as absent and is dropped. Fed by this instance's
 * own writes, by the other instances' announcements, and replaced by a read of Redis at start and
 * after every outage or lost subscription.
 *
 * @param <K> the key
 * @param <V> the value
 */
final class Mirror<K, V> {

    /** Above this many entries a write sweeps out the expired ones (keys nobody reads again). */
    static final int SWEEP_ABOVE = 1_024;

    /** How long a withdrawal's marker outlives it (longer than any read of Redis takes). */
    static final long WITHDRAWN_FOR_MS = 60_000;

    /** Numbers this instance's writes, so that a read of Redis does not undo a write made while it ran. */
    private static final AtomicLong WRITES = new AtomicLong();

    /**
     * A value and when it stops counting.
     *
     * @param value the value
     * @param expiresAt epoch ms on this instance's clock
     * @param written the number of the write that made it (0: read from Redis)
     */
    record Timed<V>(V value, long expiresAt, long written) {
    }

    private final InstantSource clock;
    private final ConcurrentHashMap<K, Timed<V>> entries = new ConcurrentHashMap<>();

    Mirror(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Remembers a value for {@code remainingMs}; 0 or less forgets the key.
     *
     * @param key the key
     * @param value the value
     * @param remainingMs how long from now
     * @return the entry written (a withdrawal's marker for 0 or less), for {@link #confirm}
     */
    Timed<V> put(K key, V value, long remainingMs) {
        if (remainingMs <= 0) {
            return remove(key);
        }
        long now = clock.millis();
        Timed<V> t = new Timed<>(value, now + remainingMs, WRITES.incrementAndGet());
        entries.put(key, t);
        if (entries.size() > SWEEP_ABOVE) {
            entries.values().removeIf(e -> e.expiresAt() <= now);
        }
        return t;
    }

    /**
     * @param key the key
     * @return the entry in force, or null
     */
    Timed<V> get(K key) {
        Timed<V> t = entries.get(key);
        if (t == null) {
            return null;
        }
        if (t.expiresAt() <= clock.millis()) {
            entries.remove(key, t);
            return null;
        }
        return t.value() == null ? null : t;
    }

    /**
     * @param key the key
     * @return ms left of the entry, 0 when none is in force
     */
    long remainingMs(K key) {
        Timed<V> t = get(key);
        return t == null ? 0 : Math.max(0, t.expiresAt() - clock.millis());
    }

    /**
     * Forgets a key. What is left is a marker, not a gap: a read of Redis that began before the
     * withdrawal (and still saw the key there) must not bring it back.
     *
     * @param key forgotten
     * @return the marker, for {@link #confirm}
     */
    Timed<V> remove(K key) {
        Timed<V> marker = new Timed<>(null, clock.millis() + WITHDRAWN_FOR_MS, WRITES.incrementAndGet());
        entries.put(key, marker);
        return marker;
    }

    /**
     * This instance's write (or withdrawal) reached Redis: it is numbered again, and put back if a
     * read of Redis that listed the keys before it landed has meanwhile replaced the copy without
     * it — a later write or withdrawal of the key is left as it is.
     *
     * @param key the key just written to Redis
     * @param written what {@link #put} or {@link #remove} wrote
     */
    void confirm(K key, Timed<V> written) {
        entries.compute(key, (k, now) -> now == null || now == written
                ? new Timed<>(written.value(), written.expiresAt(), WRITES.incrementAndGet()) : now);
    }

    /** @param which the keys to forget */
    void removeIf(Predicate<K> which) {
        entries.keySet().removeIf(which);
    }

    /**
     * An entry for {@link #replace}.
     *
     * @param value the value
     * @param remainingMs how long from now
     * @return the entry
     */
    Timed<V> timed(V value, long remainingMs) {
        return new Timed<>(value, clock.millis() + remainingMs, 0);
    }

    /**
     * Taken before a read of Redis begins: the writes after it are newer than what the read sees.
     *
     * @return the number of the last write so far (of every mirror)
     */
    static long mark() {
        return WRITES.get();
    }

    /**
     * Replaces the copy by what Redis held when read (keys absent there are forgotten), except the
     * entries this instance wrote after {@code mark}: a write racing the read (its key set in Redis
     * after the read listed the keys) is newer than the read, and stays.
     *
     * @param now what Redis holds, as {@link #timed} entries
     * @param mark {@link #mark()} taken before the read began
     */
    void replace(Map<K, Timed<V>> now, long mark) {
        long at = clock.millis();
        now.forEach((k, t) -> entries.compute(k, (key, old) -> old != null && old.written() > mark ? old : t));
        entries.entrySet().removeIf(e -> !now.containsKey(e.getKey()) && e.getValue().written() <= mark);
        entries.values().removeIf(t -> t.expiresAt() <= at);
    }

    /**
     * @param mark {@link #mark()}
     * @return whether an entry was written after the mark
     */
    boolean writtenAfter(long mark) {
        for (Timed<V> t : entries.values()) {
            if (t.written() > mark) {
                return true;
            }
        }
        return false;
    }

    /** @return entries held (expired ones included until read or swept) */
    int size() {
        return entries.size();
    }

    /** @return the time now on this instance's clock */
    long now() {
        return clock.millis();
    }
}
