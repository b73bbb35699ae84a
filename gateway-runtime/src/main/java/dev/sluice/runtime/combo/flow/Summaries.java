package dev.sluice.runtime.combo.flow;

import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code context-relay}'s summaries, cached per combo and session (issue 34): a summary serves
 * while the older turns it replaced are the same; in memory, at most {@value #MAX_ENTRIES} (the
 * least recently used go first), each for {@value #TTL_MS} ms after it was last used.
 */
final class Summaries {

    static final int MAX_ENTRIES = 4_096;
    static final long TTL_MS = 3_600_000;

    private record Cached(long olderHash, String summary, long usedAt) {
    }

    private final InstantSource clock;
    private final LinkedHashMap<String, Cached> entries = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    Summaries(InstantSource clock) {
        this.clock = clock;
    }

    /** The cached summary of these older turns, or null. */
    synchronized String find(String session, long olderHash) {
        Cached e = entries.get(session);
        long now = clock.millis();
        if (e == null || e.olderHash != olderHash || now - e.usedAt > TTL_MS) {
            return null;
        }
        entries.put(session, new Cached(olderHash, e.summary, now));
        return e.summary;
    }

    synchronized void put(String session, long olderHash, String summary) {
        entries.put(session, new Cached(olderHash, summary, clock.millis()));
    }

    synchronized int size() {
        return entries.size();
    }
}
