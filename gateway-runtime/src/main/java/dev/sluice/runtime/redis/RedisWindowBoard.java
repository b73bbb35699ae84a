package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.ClusterEvent.WindowAnnounced;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.window.shared.WindowBoard;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import redis.clients.jedis.params.SetParams;

/**
 * Provider cooldown windows announced to every instance (NF-6, PC-2):
 * {@code sluice:window:<provider>} exists while the provider cools and expires with the cooldown
 * ({@code PX}), and each write is announced on the event channel ({@link WindowAnnounced}). The
 * provider-level gate reads only this instance's {@link Mirror} of the keys (issue 26: no Redis
 * call per request), fed by its own writes and the others' announcements and read again from Redis
 * at start and after every outage. Redis down: reads answer 0 (each instance's own window decides),
 * writes are dropped.
 */
final class RedisWindowBoard implements WindowBoard {

    static final String PREFIX = "sluice:window:";

    private final RedisClient redis;
    private final ClusterEvents events;
    private final Mirror<String, Boolean> mirror;

    RedisWindowBoard(RedisClient redis, ClusterEvents events, InstantSource clock) {
        this.redis = redis;
        this.events = events;
        this.mirror = new Mirror<>(clock);
    }

    static String key(String provider) {
        return PREFIX + provider;
    }

    @Override
    public void cooling(String provider, long remainingMs) {
        if (remainingMs <= 0) {
            return;
        }
        Mirror.Timed<Boolean> written = mirror.put(provider, Boolean.TRUE, remainingMs);
        try {
            redis.call(j -> j.set(key(provider), "1", SetParams.setParams().px(remainingMs)));
            mirror.confirm(provider, written);
            events.publish(new WindowAnnounced(provider, remainingMs));
        } catch (RedisClient.Unavailable e) {
            // this instance still holds the provider; the others count their own failures
        }
    }

    @Override
    public void cleared(String provider) {
        Mirror.Timed<Boolean> withdrawn = mirror.remove(provider);
        try {
            redis.call(j -> j.del(key(provider)));
            mirror.confirm(provider, withdrawn);
            events.publish(new WindowAnnounced(provider, 0));
        } catch (RedisClient.Unavailable e) {
            // it expires on its own
        }
    }

    @Override
    public void clearedAll() {
        mirror.removeIf(p -> true);
        try {
            redis.deleteMatching(PREFIX + "*");
        } catch (RedisClient.Unavailable e) {
            // they expire on their own
        }
    }

    @Override
    public long remainingMs(String provider) {
        return redis.down() ? 0 : mirror.remainingMs(provider);
    }

    /** Another instance's announcement. */
    void apply(WindowAnnounced a) {
        mirror.put(a.provider(), Boolean.TRUE, a.remainingMs());
    }

    /** Another instance's reset of every breaker and window. */
    void forgetAll() {
        mirror.removeIf(p -> true);
    }

    /** Reads every announced window from Redis into the mirror (at start, after an outage). */
    void reload() {
        long mark = Mirror.mark();
        Map<String, Mirror.Timed<Boolean>> now = new HashMap<>();
        Snapshots.read(redis, redis.keys(PREFIX + "*"), (key, ttl, value) -> now.put(key.substring(PREFIX.length()), mirror.timed(Boolean.TRUE, ttl)));
        mirror.replace(now, mark);
    }
}
