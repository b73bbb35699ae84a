package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.WindowBoard;
import redis.clients.jedis.params.SetParams;

/**
 * Provider cooldown windows announced to every instance (NF-6, PC-2):
 * {@code sluice:window:<provider>} exists while the provider cools and expires with the cooldown
 * ({@code PX}); a reader asks {@code PTTL} — one round trip, no clock comparison between instances.
 * Written when a failure crosses the window's threshold, deleted by the success that ends it, read by
 * the provider-level gate when the instance's own window shows no cooldown. Unreachable: reads
 * answer 0 (each instance's own window decides), writes are dropped.
 */
final class RedisWindowBoard implements WindowBoard {

    private final RedisClient redis;

    RedisWindowBoard(RedisClient redis) {
        this.redis = redis;
    }

    static String key(String provider) {
        return "sluice:window:" + provider;
    }

    @Override
    public void cooling(String provider, long remainingMs) {
        if (remainingMs <= 0) {
            return;
        }
        try {
            redis.call(j -> j.set(key(provider), "1", SetParams.setParams().px(remainingMs)));
        } catch (RedisClient.Unavailable e) {
            // this instance still holds the provider; the others count their own failures
        }
    }

    @Override
    public void cleared(String provider) {
        try {
            redis.call(j -> j.del(key(provider)));
        } catch (RedisClient.Unavailable e) {
            // it expires on its own
        }
    }

    @Override
    public void clearedAll() {
        try {
            redis.deleteMatching("sluice:window:*");
        } catch (RedisClient.Unavailable e) {
            // they expire on their own
        }
    }

    @Override
    public long remainingMs(String provider) {
        try {
            long ttl = redis.call(j -> j.pttl(key(provider)));
            return Math.max(0, ttl);
        } catch (RedisClient.Unavailable e) {
            return 0;
        }
    }
}
