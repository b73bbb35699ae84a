package dev.sluice.runtime.redis;

import dev.sluice.api.SharedNotes;
import java.time.Duration;
import java.util.Optional;
import redis.clients.jedis.params.SetParams;

/**
 * One plugin's {@link SharedNotes} in Redis: {@code sluice:note:<plugin>:<key>}, always written with
 * {@code PX} so every note expires. Bounded like every Redis call of the instance; unreachable:
 * reads answer empty, writes and removals are dropped (the plugin keeps its own memory).
 */
final class RedisSharedNotes implements SharedNotes {

    private final RedisClient redis;
    private final String prefix;

    RedisSharedNotes(RedisClient redis, String plugin) {
        this.redis = redis;
        this.prefix = "sluice:note:" + plugin + ":";
    }

    @Override
    public Optional<String> get(String key) {
        String k = prefix + SharedNotes.checkKey(key);
        try {
            return Optional.ofNullable(redis.call(j -> j.get(k)));
        } catch (RedisClient.Unavailable e) {
            return Optional.empty();
        }
    }

    @Override
    public void put(String key, String value, Duration ttl) {
        String k = prefix + SharedNotes.checkKey(key);
        SharedNotes.checkValue(value, ttl);
        try {
            redis.call(j -> j.set(k, value, SetParams.setParams().px(ttl.toMillis())));
        } catch (RedisClient.Unavailable e) {
            // best effort: the other instances learn it on their own
        }
    }

    @Override
    public void remove(String key) {
        String k = prefix + SharedNotes.checkKey(key);
        try {
            redis.call(j -> j.del(k));
        } catch (RedisClient.Unavailable e) {
            // it expires on its own
        }
    }
}
