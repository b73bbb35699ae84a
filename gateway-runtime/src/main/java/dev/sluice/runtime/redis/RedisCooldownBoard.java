package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.CooldownBoard;
import redis.clients.jedis.params.SetParams;

/**
 * Connection cooldowns announced to every instance (NF-6): {@code sluice:cooldown:<connection>}
 * holds the cooldown's end and expires with it ({@code PX}), so a reader asks {@code PTTL} — one
 * round trip, no clock comparison between instances. Written synchronously after the durable
 * write; read on selection for a connection whose own snapshot shows no cooldown. Unreachable:
 * reads answer 0 (the local snapshot decides, and the database's notification still arrives),
 * writes are dropped.
 */
final class RedisCooldownBoard implements CooldownBoard {

    private final RedisClient redis;

    RedisCooldownBoard(RedisClient redis) {
        this.redis = redis;
    }

    static String key(String connectionId) {
        return "sluice:cooldown:" + connectionId;
    }

    @Override
    public void cooled(String connectionId, long remainingMs) {
        if (remainingMs <= 0) {
            return;
        }
        try {
            redis.call(j -> j.set(key(connectionId), "1", SetParams.setParams().px(remainingMs)));
        } catch (RedisClient.Unavailable e) {
            // the durable state carries it within a second
        }
    }

    @Override
    public boolean claim(String connectionId, long remainingMs) {
        if (remainingMs <= 0) {
            return true;
        }
        try {
            return "OK".equals(redis.call(j -> j.set(key(connectionId), "1", SetParams.setParams().nx().px(remainingMs))));
        } catch (RedisClient.Unavailable e) {
            return true;
        }
    }

    @Override
    public void cleared(String connectionId) {
        try {
            redis.call(j -> j.del(key(connectionId)));
        } catch (RedisClient.Unavailable e) {
            // it expires on its own; the durable state says the connection is active
        }
    }

    @Override
    public long remainingMs(String connectionId) {
        try {
            long ttl = redis.call(j -> j.pttl(key(connectionId)));
            return Math.max(0, ttl);
        } catch (RedisClient.Unavailable e) {
            return 0;
        }
    }
}
