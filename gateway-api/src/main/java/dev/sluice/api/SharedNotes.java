package dev.sluice.api;

import java.time.Duration;
import java.util.Optional;

/**
 * Short-lived notes a plugin shares with the other instances of a Sluice cluster (NF-6): what one
 * instance learned about an upstream account that the others should act on at once instead of
 * learning it again from a failure (e.g. the Claude plugin's low-priority lane). Offered by
 * {@link HostContext#sharedNotes()} only when the host runs in shared mode ({@code SLUICE_REDIS_URL});
 * a single instance has no use for it and plugins keep their own memory.
 *
 * <p>Notes belong to the plugin that wrote them (the host prefixes the key with the plugin's name),
 * always expire (a note without a time to live does not exist), and are best effort: every call is
 * bounded by the host (a fraction of a second) and when the shared store cannot be reached, reads
 * answer empty and writes are dropped — a plugin must work, only less well informed, without them.
 * Never put secrets in a note. Values are compared and overwritten whole; last writer wins.
 */
public interface SharedNotes {

    /** The longest key, in characters. */
    int MAX_KEY_LENGTH = 200;
    /** The longest value, in characters. */
    int MAX_VALUE_LENGTH = 4096;
    /** The longest time to live. */
    Duration MAX_TTL = Duration.ofDays(8);

    /**
     * Reads a note.
     *
     * @param key the key (1–{@value #MAX_KEY_LENGTH} characters)
     * @return the value, or empty when there is none, it expired, or the store cannot be reached
     * @throws IllegalArgumentException when the key is empty or too long
     */
    Optional<String> get(String key);

    /**
     * Writes a note, replacing any note under the same key.
     *
     * @param key the key (1–{@value #MAX_KEY_LENGTH} characters)
     * @param value the value (at most {@value #MAX_VALUE_LENGTH} characters)
     * @param ttl how long it lasts (at least 1 ms, at most {@link #MAX_TTL})
     * @throws IllegalArgumentException when the key, the value or the time to live is out of bounds
     */
    void put(String key, String value, Duration ttl);

    /**
     * Removes a note (nothing when there is none).
     *
     * @param key the key (1–{@value #MAX_KEY_LENGTH} characters)
     * @throws IllegalArgumentException when the key is empty or too long
     */
    void remove(String key);

    /**
     * Checks a key, for implementations.
     *
     * @param key the key
     * @return the key
     * @throws IllegalArgumentException when it is null, empty or too long
     */
    static String checkKey(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("a shared note's key must have 1 to " + MAX_KEY_LENGTH + " characters");
        }
        return key;
    }

    /**
     * Checks a value and a time to live, for implementations.
     *
     * @param value the value
     * @param ttl the time to live
     * @throws IllegalArgumentException when either is out of bounds
     */
    static void checkValue(String value, Duration ttl) {
        if (value == null || value.length() > MAX_VALUE_LENGTH) {
            throw new IllegalArgumentException("a shared note's value must have at most " + MAX_VALUE_LENGTH + " characters");
        }
        if (ttl == null || ttl.toMillis() < 1 || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException("a shared note's time to live must be between 1 ms and " + MAX_TTL.toDays() + " days");
        }
    }
}
