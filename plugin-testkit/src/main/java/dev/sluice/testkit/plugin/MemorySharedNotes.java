package dev.sluice.testkit.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.SharedNotes;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@link SharedNotes} in memory, expiring on a given clock: give one to the host contexts of two
 * executors ({@link TestingHostContext.Builder#sharedNotes}) to test what a plugin does when it runs on
 * several instances of a cluster. The same bounds as the host's notes are checked.
 */
public final class MemorySharedNotes implements SharedNotes {

    private record Note(String value, long expiresAt) {
    }

    private final InstantSource clock;
    private final Map<String, Note> notes = new HashMap<>();
    private boolean reachable = true;

    /**
     * @param clock decides expiry
     */
    public MemorySharedNotes(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public synchronized Optional<String> get(String key) {
        SharedNotes.checkKey(key);
        Note n = notes.get(key);
        if (!reachable || n == null) {
            return Optional.empty();
        }
        if (n.expiresAt() <= clock.millis()) {
            notes.remove(key);
            return Optional.empty();
        }
        return Optional.of(n.value());
    }

    @Override
    public synchronized void put(String key, String value, Duration ttl) {
        SharedNotes.checkKey(key);
        SharedNotes.checkValue(value, ttl);
        if (reachable) {
            notes.put(key, new Note(value, clock.millis() + ttl.toMillis()));
        }
    }

    @Override
    public synchronized void remove(String key) {
        SharedNotes.checkKey(key);
        if (reachable) {
            notes.remove(key);
        }
    }

    /**
     * Simulates the shared store going away (reads answer empty, writes are dropped) or coming back.
     *
     * @param value false: unreachable
     */
    public synchronized void reachable(boolean value) {
        reachable = value;
    }

    /**
     * The time a note has left, for assertions.
     *
     * @param key the key
     * @return what is left, or empty when there is no such note
     */
    public synchronized Optional<Duration> ttl(String key) {
        Note n = notes.get(key);
        long left = n == null ? 0 : n.expiresAt() - clock.millis();
        return left > 0 ? Optional.of(Duration.ofMillis(left)) : Optional.empty();
    }
}
