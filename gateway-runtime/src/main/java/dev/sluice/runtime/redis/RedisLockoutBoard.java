package dev.sluice.runtime.redis;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ClusterEvent.LockAnnounced;
import dev.sluice.runtime.resilience.ClusterEvent.LocksWithdrawn;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.lockout.shared.LockoutBoard;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Model lockouts announced to every instance (NF-6, §11): {@code sluice:lockout:<connection>:<slot>}
 * holds the lock's reason, scope and key model and expires with the lock ({@code PX});
 * {@code sluice:lockouts:<connection>} indexes a connection's slots (so that an operator's clear of
 * the connection finds them) and expires with the last of them. Each write is announced on the event
 * channel ({@link LockAnnounced}, {@link LocksWithdrawn}), and a request reads only this instance's
 * {@link Mirror} per connection (issue 26: no Redis call per walked connection), fed by its own
 * writes and the others' announcements and read again from Redis at start and after every outage.
 * Redis down: reads answer null (the instance's own locks decide), writes are dropped.
 */
final class RedisLockoutBoard implements LockoutBoard {

    static final String INDEX_PREFIX = "sluice:lockouts:";

    /** KEYS: the slot, the index; ARGV: value, ttl ms. */
    static final String LOCK = """
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            redis.call('SADD', KEYS[2], KEYS[1])
            if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then
              redis.call('PEXPIRE', KEYS[2], ARGV[2])
            end
            return 1
            """;

    /** KEYS[1]: the index, then the slots. */
    static final String CLEAR = """
            for i = 2, #KEYS do
              redis.call('DEL', KEYS[i])
              redis.call('SREM', KEYS[1], KEYS[i])
            end
            return 1
            """;

    /** KEYS[1]: the index. */
    static final String CLEAR_CONNECTION = """
            local members = redis.call('SMEMBERS', KEYS[1])
            for _, k in ipairs(members) do redis.call('DEL', k) end
            redis.call('DEL', KEYS[1])
            return #members
            """;

    private final RedisClient redis;
    private final ClusterEvents events;
    private final InstantSource clock;
    /** connection → its announced slots. */
    private final ConcurrentHashMap<String, Mirror<String, Lock>> mirror = new ConcurrentHashMap<>();

    RedisLockoutBoard(RedisClient redis, ClusterEvents events, InstantSource clock) {
        this.redis = redis;
        this.events = events;
        this.clock = clock;
    }

    static String key(String connectionId, String slot) {
        return "sluice:lockout:" + connectionId + ":" + slot;
    }

    static String index(String connectionId) {
        return INDEX_PREFIX + connectionId;
    }

    private Mirror.Timed<Lock> remember(String connectionId, String slot, Lock lock, long remainingMs) {
        return mirror.computeIfAbsent(connectionId, c -> new Mirror<>(clock)).put(slot, lock, remainingMs);
    }

    /** The write reached Redis: a read of Redis that listed the keys before it must not undo it. */
    private void confirm(String connectionId, Map<String, Mirror.Timed<Lock>> written) {
        Mirror<String, Lock> m = mirror.computeIfAbsent(connectionId, c -> new Mirror<>(clock));
        written.forEach(m::confirm);
    }

    @Override
    public void locked(String connectionId, String slot, Lock lock) {
        if (lock.remainingMs() <= 0) {
            return;
        }
        String value = lock.reason().name() + '\n' + lock.scope().name() + '\n' + lock.model();
        Mirror.Timed<Lock> written = remember(connectionId, slot, lock, lock.remainingMs());
        try {
            redis.eval(LOCK, List.of(key(connectionId, slot), index(connectionId)),
                    List.of(value, Long.toString(lock.remainingMs())));
            confirm(connectionId, Map.of(slot, written));
            events.publish(new LockAnnounced(connectionId, slot, lock.model(), lock.scope().name(), lock.reason().name(), lock.remainingMs()));
        } catch (RedisClient.Unavailable e) {
            // this instance still honours its own lock; the others see the next failure themselves
        }
    }

    @Override
    public Lock find(String connectionId, List<String> slots) {
        Mirror<String, Lock> m = mirror.get(connectionId);
        if (m == null || redis.down()) {
            return null;
        }
        Mirror.Timed<Lock> best = null;
        for (int i = 0; i < slots.size(); i++) {
            Mirror.Timed<Lock> t = m.get(slots.get(i));
            if (t != null && (best == null || t.expiresAt() > best.expiresAt())) {
                best = t;
            }
        }
        if (best == null) {
            return null;
        }
        long left = best.expiresAt() - m.now();
        return left > 0 ? new Lock(best.value().model(), best.value().scope(), best.value().reason(), left) : null;
    }

    @Override
    public void cleared(String connectionId, List<String> slots) {
        List<String> keys = new ArrayList<>(slots.size() + 1);
        keys.add(index(connectionId));
        for (String slot : slots) {
            keys.add(key(connectionId, slot));
        }
        Map<String, Mirror.Timed<Lock>> withdrawn = new HashMap<>();
        Mirror<String, Lock> m = mirror.get(connectionId);
        if (m != null) {
            slots.forEach(slot -> withdrawn.put(slot, m.remove(slot)));
        }
        try {
            redis.eval(CLEAR, keys, List.of());
            if (!withdrawn.isEmpty()) {
                confirm(connectionId, withdrawn);
            }
            events.publish(new LocksWithdrawn(connectionId, slots));
        } catch (RedisClient.Unavailable e) {
            // they expire on their own
        }
    }

    @Override
    public void clearedConnection(String connectionId) {
        mirror.remove(connectionId);
        try {
            redis.eval(CLEAR_CONNECTION, List.of(index(connectionId)), List.of());
            events.publish(new LocksWithdrawn(connectionId, List.of()));
        } catch (RedisClient.Unavailable e) {
            // they expire on their own
        }
    }

    /** Another instance's announcement. */
    void apply(LockAnnounced a) {
        try {
            remember(a.connectionId(), a.slot(), new Lock(a.model(), LockScope.valueOf(a.scope()), FailureReason.valueOf(a.reason()),
                    a.remainingMs()), a.remainingMs());
        } catch (IllegalArgumentException e) {
            // another version's scope or reason: not ours to read
        }
    }

    /** Another instance's withdrawal. */
    void apply(LocksWithdrawn w) {
        if (w.slots().isEmpty()) {
            mirror.remove(w.connectionId());
            return;
        }
        Mirror<String, Lock> m = mirror.get(w.connectionId());
        if (m != null) {
            w.slots().forEach(m::remove);
        }
    }

    /** Reads every announced lock from Redis into the mirror (at start, after an outage). */
    void reload() {
        long mark = Mirror.mark();
        Map<String, Map<String, Mirror.Timed<Lock>>> now = new HashMap<>();
        for (String index : redis.keys(INDEX_PREFIX + "*")) {
            String connectionId = index.substring(INDEX_PREFIX.length());
            String prefix = key(connectionId, "");
            List<String> members = new ArrayList<>(redis.call(j -> j.smembers(index)));
            Mirror<String, Lock> m = mirror.computeIfAbsent(connectionId, c -> new Mirror<>(clock));
            Map<String, Mirror.Timed<Lock>> slots = now.computeIfAbsent(connectionId, c -> new HashMap<>());
            Snapshots.read(redis, members, (key, ttl, value) -> {
                String[] parts = value.split("\n", 3);
                if (key.startsWith(prefix) && parts.length == 3) {
                    try {
                        slots.put(key.substring(prefix.length()),
                                m.timed(new Lock(parts[2], LockScope.valueOf(parts[1]), FailureReason.valueOf(parts[0]), ttl), ttl));
                    } catch (IllegalArgumentException e) {
                        // written by another version of Sluice: not ours to read
                    }
                }
            });
        }
        mirror.entrySet().removeIf(e -> !now.containsKey(e.getKey()) && !e.getValue().writtenAfter(mark));
        mirror.forEach((c, m) -> m.replace(now.getOrDefault(c, Map.of()), mark));
    }
}
