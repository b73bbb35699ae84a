package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.ClusterEvent.CooldownAnnounced;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.cooldown.shared.CooldownBoard;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.params.SetParams;

/**
 * Connection cooldowns announced to every instance (NF-6): {@code sluice:cooldown:<connection>}
 * holds the cooldown and expires with it ({@code PX}), and each write is announced on the event
 * channel ({@link CooldownAnnounced}). Selection reads only this instance's {@link Mirror} of the
 * keys — fed by its own writes and the others' announcements, read again from Redis at start and
 * after every outage — so a request makes no Redis call (issue 26); another instance's cooldown
 * counts here once its announcement arrives (pub/sub latency, about a millisecond on a LAN). The
 * claim of a failure's cooldown stays one atomic {@code SET NX} (CC-3 across instances). Redis down:
 * reads answer 0 (the local snapshot decides, and the database's notification still arrives), writes
 * are dropped.
 */
final class RedisCooldownBoard implements CooldownBoard {

    static final String PREFIX = "sluice:cooldown:";

    private final RedisClient redis;
    private final ClusterEvents events;
    private final Mirror<String, Boolean> mirror;

    RedisCooldownBoard(RedisClient redis, ClusterEvents events, InstantSource clock) {
        this.redis = redis;
        this.events = events;
        this.mirror = new Mirror<>(clock);
    }

    static String key(String connectionId) {
        return PREFIX + connectionId;
    }

    @Override
    public void cooled(String connectionId, long remainingMs) {
        if (remainingMs <= 0) {
            return;
        }
        Mirror.Timed<Boolean> written = mirror.put(connectionId, Boolean.TRUE, remainingMs);
        try {
            redis.call(j -> j.set(key(connectionId), "1", SetParams.setParams().px(remainingMs)));
            mirror.confirm(connectionId, written);
            events.publish(new CooldownAnnounced(connectionId, remainingMs));
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
            boolean claimed = "OK".equals(redis.call(j -> j.set(key(connectionId), "1", SetParams.setParams().nx().px(remainingMs))));
            if (claimed) {
                mirror.put(connectionId, Boolean.TRUE, remainingMs);
                events.publish(new CooldownAnnounced(connectionId, remainingMs));
            } else {
                // another instance holds it: learn how long now (failure path only), not after its announcement arrives
                long left = redis.call(j -> j.pttl(key(connectionId)));
                if (left > 0) {
                    mirror.put(connectionId, Boolean.TRUE, left);
                }
            }
            return claimed;
        } catch (RedisClient.Unavailable e) {
            return true;
        }
    }

    @Override
    public void cleared(String connectionId) {
        Mirror.Timed<Boolean> withdrawn = mirror.remove(connectionId);
        try {
            redis.call(j -> j.del(key(connectionId)));
            mirror.confirm(connectionId, withdrawn);
            events.publish(new CooldownAnnounced(connectionId, 0));
        } catch (RedisClient.Unavailable e) {
            // it expires on its own; the durable state says the connection is active
        }
    }

    @Override
    public long remainingMs(String connectionId) {
        return redis.down() ? 0 : mirror.remainingMs(connectionId);
    }

    /** Another instance's announcement. */
    void apply(CooldownAnnounced a) {
        mirror.put(a.connectionId(), Boolean.TRUE, a.remainingMs());
    }

    /** An operator cleared a connection on another instance. */
    void forget(String connectionId) {
        mirror.remove(connectionId);
    }

    /** Reads every announced cooldown from Redis into the mirror (at start, after an outage). */
    void reload() {
        long mark = Mirror.mark();
        List<String> keys = redis.keys(PREFIX + "*");
        Map<String, Mirror.Timed<Boolean>> now = new HashMap<>();
        Snapshots.read(redis, keys, (key, ttl, value) -> now.put(key.substring(PREFIX.length()), mirror.timed(Boolean.TRUE, ttl)));
        mirror.replace(now, mark);
    }
}
