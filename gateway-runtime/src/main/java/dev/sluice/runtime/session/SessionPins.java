package dev.sluice.runtime.session;

import dev.sluice.runtime.store.ChangeFeed;
import dev.sluice.runtime.store.JdbcSessionPinStore;
import dev.sluice.runtime.store.JdbcSessionPinStore.PinRow;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Session pins (SPEC SA-1, SA-2): a session key and a provider → the connection that served the
 * session last. Held in memory for the hot path and written through to
 * {@code session_account_affinity}, so pins survive a restart; the last-seen time is written at
 * most every tenth of the TTL (at least every second) per pin, not on every request. A pin not
 * seen for the TTL is gone (lazily); with TTL 0 nothing is pinned or read. Also remembers when each
 * connection last served, so a new session goes to the least recently used one.
 */
public final class SessionPins {

    private static final System.Logger LOG = System.getLogger(SessionPins.class.getName());
    /** Beyond this many pins, the expired ones are swept, then the least recently seen dropped. */
    static final int MAX_PINS = 200_000;

    /**
     * One pin.
     *
     * @param sessionKey the session key's hash
     * @param provider the provider id
     * @param connectionId the connection
     * @param createdAt epoch ms
     * @param lastSeenAt epoch ms
     */
    public record Pin(String sessionKey, String provider, String connectionId, long createdAt, long lastSeenAt) {
    }

    private final JdbcSessionPinStore store;
    private final InstantSource clock;
    private final LongSupplier ttlMs;
    private final Map<String, Pin> pins = new ConcurrentHashMap<>();
    /** What was last written per pin, to throttle last-seen writes. */
    private final Map<String, Long> written = new ConcurrentHashMap<>();
    /**
     * When each connection last served: one cell per connection set in place, not a map put per
     * request (issue 26: at high concurrency every request locked the same map bin and boxed a Long).
     */
    private final Map<String, java.util.concurrent.atomic.AtomicLong> lastUsed = new ConcurrentHashMap<>();

    /**
     * Loads the stored pins.
     *
     * @param store the table
     * @param clock the clock
     * @param ttlMs the live {@code sessionAffinityTtlMs} (0 = off)
     */
    public SessionPins(JdbcSessionPinStore store, InstantSource clock, LongSupplier ttlMs) {
        this.store = store;
        this.clock = clock;
        this.ttlMs = ttlMs;
        for (PinRow r : store.loadAll()) {
            Pin p = new Pin(r.sessionKey(), r.provider(), r.connectionId(), r.createdAt(), r.lastSeenAt());
            pins.put(key(p.sessionKey(), p.provider()), p);
            written.put(key(p.sessionKey(), p.provider()), p.lastSeenAt());
        }
    }

    /**
     * Follows the pins other instances write: a pin announced is re-read, the pins of a
     * connection announced as removed leave memory, and after a reconnection everything is
     * re-read. A pin this instance saw more recently than the row says keeps its newer last-seen time.
     *
     * @param feed the change notifications
     */
    public void follow(ChangeFeed feed) {
        feed.subscribe(JdbcSessionPinStore.TOPIC, id -> {
            int space = id == null ? -1 : id.lastIndexOf(' ');
            if (space < 0) {
                return;
            }
            String sessionKey = id.substring(0, space);
            String provider = id.substring(space + 1);
            String k = key(sessionKey, provider);
            store.find(sessionKey, provider).ifPresentOrElse(r -> pins.compute(k, (key, mine) -> mine != null
                    && mine.connectionId().equals(r.connectionId()) && mine.lastSeenAt() >= r.lastSeenAt() ? mine : pin(r)),
                    () -> pins.remove(k));
        });
        feed.subscribe(JdbcSessionPinStore.TOPIC_CONNECTION, connectionId -> {
            if (connectionId != null) {
                remove(connectionId);
                return;
            }
            Map<String, Pin> stored = new java.util.HashMap<>();
            for (PinRow r : store.loadAll()) {
                stored.put(key(r.sessionKey(), r.provider()), pin(r));
            }
            pins.keySet().retainAll(stored.keySet());
            stored.forEach((k, p) -> pins.merge(k, p, (mine, row) -> mine.connectionId().equals(row.connectionId())
                    && mine.lastSeenAt() >= row.lastSeenAt() ? mine : row));
        });
    }

    private static Pin pin(PinRow r) {
        return new Pin(r.sessionKey(), r.provider(), r.connectionId(), r.createdAt(), r.lastSeenAt());
    }

    private static String key(String sessionKey, String provider) {
        return sessionKey + '\u0000' + provider;
    }

    private boolean live(Pin p, long now, long ttl) {
        return now - p.lastSeenAt() < ttl;
    }

    /**
     * The connection a session is pinned to, or null (none, expired, or affinity off).
     *
     * @param sessionKey the session key's hash
     * @param provider the provider
     * @return the connection id, or null
     */
    public String pinned(String sessionKey, String provider) {
        long ttl = ttlMs.getAsLong();
        if (ttl <= 0 || sessionKey == null) {
            return null;
        }
        Pin p = pins.get(key(sessionKey, provider));
        return p != null && live(p, clock.millis(), ttl) ? p.connectionId() : null;
    }

    /**
     * A connection served a request of a session (or of none): pin, move, or refresh.
     *
     * @param sessionKey the session key's hash, or null
     * @param provider the provider
     * @param connectionId the connection
     */
    public void served(String sessionKey, String provider, String connectionId) {
        long now = clock.millis();
        java.util.concurrent.atomic.AtomicLong used = lastUsed.get(connectionId);
        if (used == null) {
            used = lastUsed.computeIfAbsent(connectionId, k -> new java.util.concurrent.atomic.AtomicLong());
        }
        if (used.get() != now) {
            used.set(now);
        }
        long ttl = ttlMs.getAsLong();
        if (ttl <= 0 || sessionKey == null) {
            return;
        }
        String k = key(sessionKey, provider);
        Pin old = pins.get(k);
        boolean fresh = old == null || !live(old, now, ttl);
        boolean moved = !fresh && !old.connectionId().equals(connectionId);
        Pin p = new Pin(sessionKey, provider, connectionId, fresh ? now : old.createdAt(), now);
        pins.put(k, p);
        Long lastWrite = written.get(k);
        if (fresh || moved || lastWrite == null || now - lastWrite >= Math.max(1_000, ttl / 10)) {
            written.put(k, now);
            store.save(new PinRow(sessionKey, provider, connectionId, p.createdAt(), now));
        }
        if (moved) {
            LOG.log(System.Logger.Level.INFO, "session " + shortKey(sessionKey) + " (" + provider + ") moved from connection "
                    + old.connectionId() + " to " + connectionId);
        }
        if (pins.size() > MAX_PINS) {
            sweep(now, ttl);
        }
    }

    /**
     * A fallback verdict on a connection: its pins are evicted (SA-1).
     *
     * @param connectionId the connection
     * @return how many were evicted
     */
    public int evict(String connectionId) {
        int n = remove(connectionId);
        if (n > 0) {
            store.deleteByConnection(connectionId);
            LOG.log(System.Logger.Level.INFO, "connection " + connectionId + " failed over: " + n + " session pin(s) evicted");
        }
        return n;
    }

    /**
     * Removes pins (the admin's release): those of one connection, or all.
     *
     * @param connectionId the connection, or null for all
     * @return how many were removed
     */
    public int clear(String connectionId) {
        int n = remove(connectionId);
        store.deleteByConnection(connectionId);
        return n;
    }

    /** Drops the in-memory pins of one connection (all when null); returns how many. */
    private int remove(String connectionId) {
        int n = 0;
        for (Map.Entry<String, Pin> e : pins.entrySet()) {
            if ((connectionId == null || e.getValue().connectionId().equals(connectionId)) && pins.remove(e.getKey(), e.getValue())) {
                written.remove(e.getKey());
                n++;
            }
        }
        return n;
    }

    /**
     * When a connection last served (epoch ms), 0 = not since start-up.
     *
     * @param connectionId the connection
     * @return the time
     */
    public long lastUsed(String connectionId) {
        java.util.concurrent.atomic.AtomicLong used = lastUsed.get(connectionId);
        return used == null ? 0L : used.get();
    }

    /** @return the live pins, most recently seen first (empty when affinity is off) */
    public List<Pin> list() {
        long ttl = ttlMs.getAsLong();
        long now = clock.millis();
        List<Pin> out = new ArrayList<>();
        if (ttl > 0) {
            for (Pin p : pins.values()) {
                if (live(p, now, ttl)) {
                    out.add(p);
                }
            }
        }
        out.sort(Comparator.comparingLong(Pin::lastSeenAt).reversed());
        return out;
    }

    private synchronized void sweep(long now, long ttl) {
        pins.values().removeIf(p -> !live(p, now, ttl));
        written.keySet().retainAll(pins.keySet());
        store.deleteSeenBefore(now - ttl);
        if (pins.size() > MAX_PINS) {
            List<Pin> all = new ArrayList<>(pins.values());
            all.sort(Comparator.comparingLong(Pin::lastSeenAt));
            for (Pin p : all.subList(0, all.size() - MAX_PINS)) {
                pins.remove(key(p.sessionKey(), p.provider()));
                store.delete(p.sessionKey(), p.provider());
            }
        }
    }

    /** The first characters of a key's hash: enough to follow a session in the log, never the key. */
    static String shortKey(String sessionKey) {
        return sessionKey.length() > 19 ? sessionKey.substring(0, 19) : sessionKey;
    }
}
