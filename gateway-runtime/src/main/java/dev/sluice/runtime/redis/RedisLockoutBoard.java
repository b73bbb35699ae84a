package dev.sluice.runtime.redis;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.LockoutBoard;
import java.util.ArrayList;
import java.util.List;

/**
 * Model lockouts announced to every instance (NF-6, §11): {@code sluice:lockout:<connection>:<slot>}
 * holds the lock's reason, scope and key model and expires with the lock ({@code PX}); a reader
 * asks the {@code PTTL} of the (at most four) slots of its model in one script — no clock
 * comparison between instances. {@code sluice:lockouts:<connection>} indexes a connection's slots
 * (so that an operator's clear of the connection finds them) and expires with the last of them.
 * Unreachable: reads answer null (the instance's own locks decide), writes are dropped.
 */
final class RedisLockoutBoard implements LockoutBoard {

    /** KEYS: the slot, the index; ARGV: value, ttl ms. */
    static final String LOCK = """
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            redis.call('SADD', KEYS[2], KEYS[1])
            if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then
              redis.call('PEXPIRE', KEYS[2], ARGV[2])
            end
            return 1
            """;

    /** KEYS: the slots; answers {value, ttl} of the one that ends last, or nil. */
    static final String FIND = """
            local best, bestTtl = nil, 0
            for i = 1, #KEYS do
              local t = redis.call('PTTL', KEYS[i])
              if t > bestTtl then
                local v = redis.call('GET', KEYS[i])
                if v then best, bestTtl = v, t end
              end
            end
            if best then return {best, bestTtl} end
            return nil
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

    RedisLockoutBoard(RedisClient redis) {
        this.redis = redis;
    }

    static String key(String connectionId, String slot) {
        return "sluice:lockout:" + connectionId + ":" + slot;
    }

    static String index(String connectionId) {
        return "sluice:lockouts:" + connectionId;
    }

    @Override
    public void locked(String connectionId, String slot, Lock lock) {
        if (lock.remainingMs() <= 0) {
            return;
        }
        String value = lock.reason().name() + '\n' + lock.scope().name() + '\n' + lock.model();
        try {
            redis.eval(LOCK, List.of(key(connectionId, slot), index(connectionId)),
                    List.of(value, Long.toString(lock.remainingMs())));
        } catch (RedisClient.Unavailable e) {
            // this instance still honours its own lock; the others see the next failure themselves
        }
    }

    @Override
    public Lock find(String connectionId, List<String> slots) {
        List<String> keys = new ArrayList<>(slots.size());
        for (String slot : slots) {
            keys.add(key(connectionId, slot));
        }
        try {
            Object r = redis.eval(FIND, keys, List.of());
            if (!(r instanceof List<?> l) || l.size() != 2 || !(l.get(1) instanceof Long ttl) || ttl <= 0) {
                return null;
            }
            String[] parts = String.valueOf(l.get(0)).split("\n", 3);
            if (parts.length != 3) {
                return null;
            }
            return new Lock(parts[2], LockScope.valueOf(parts[1]), FailureReason.valueOf(parts[0]), ttl);
        } catch (RedisClient.Unavailable e) {
            return null;
        } catch (IllegalArgumentException e) {
            return null; // written by another version of Sluice: not ours to read
        }
    }

    @Override
    public void cleared(String connectionId, List<String> slots) {
        List<String> keys = new ArrayList<>(slots.size() + 1);
        keys.add(index(connectionId));
        for (String slot : slots) {
            keys.add(key(connectionId, slot));
        }
        try {
            redis.eval(CLEAR, keys, List.of());
        } catch (RedisClient.Unavailable e) {
            // they expire on their own
        }
    }

    @Override
    public void clearedConnection(String connectionId) {
        try {
            redis.eval(CLEAR_CONNECTION, List.of(index(connectionId)), List.of());
        } catch (RedisClient.Unavailable e) {
            // they expire on their own
        }
    }
}
