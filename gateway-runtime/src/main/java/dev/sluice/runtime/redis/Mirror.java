package dev.sluice.runtime.redis;

import static java.util.Objects.requireNonNull;

import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

    /**
     * A value and when it stops counting.
     *
     * @param value the value
     * @param expiresAt epoch ms on this instance's clock
     */
    record Timed<V>(V value, long expiresAt) {
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
     */
    void put(K key, V value, long remainingMs) {
        if (remainingMs <= 0) {
            entries.remove(key);
            return;
        }
        long now = clock.millis();
        entries.put(key, new Timed<>(value, now + remainingMs));
        if (entries.size() > SWEEP_ABOVE) {
            entries.values().removeIf(t -> t.expiresAt() <= now);
        }
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
        return t;
    }

    /**
     * @param key the key
     * @return ms left of the entry, 0 when none is in force
     */
    long remainingMs(K key) {
        Timed<V> t = get(key);
        return t == null ? 0 : Math.max(0, t.expiresAt() - clock.millis());
    }

    /** @param key forgotten */
    void remove(K key) {
        entries.remove(key);
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
        return new Timed<>(value, clock.millis() + remainingMs);
    }

    /**
     * Replaces the whole copy by what Redis holds now (keys absent there are forgotten).
     *
     * @param now what Redis holds, as {@link #timed} entries
     */
    void replace(Map<K, Timed<V>> now) {
        long at = clock.millis();
        entries.putAll(now);
        entries.keySet().removeIf(k -> !now.containsKey(k));
        entries.values().removeIf(t -> t.expiresAt() <= at);
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
