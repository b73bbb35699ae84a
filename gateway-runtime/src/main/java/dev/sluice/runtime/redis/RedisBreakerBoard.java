package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvent.BreakerAnnounced;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.breaker.shared.BreakerBoard;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared part of circuit breakers (NF-6): one hash per breaker,
 * {@code sluice:breaker:<provider>:<host>}, with {@code openUntil} and {@code probeUntil} on the
 * Redis server's clock. Open: refused until {@code openUntil}. After it: half-open, and the one
 * caller that claims the probe (a compare-and-set in Lua) holds it until its outcome or
 * {@code probeUntil}. The key expires {@code probe lease} after the open period, so a breaker
 * nobody probes is forgotten rather than kept forever.
 *
 * <p>Every open, probe claim and close is announced on the event channel
 * ({@link BreakerAnnounced}), and {@link #admit} reads this instance's {@link Mirror} first (issue
 * 26): a breaker no instance announced is admitted, and one still in its open period refused, with
 * no Redis call; only a half-open one asks Redis, whose script hands out the one probe over all
 * instances. Redis down: admitted, the local breaker alone decides.
 */
final class RedisBreakerBoard implements BreakerBoard {

    static final String OPEN = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local period, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
            redis.call('HSET', KEYS[1], 'openUntil', now + period, 'probeUntil', 0)
            redis.call('PEXPIRE', KEYS[1], period + lease)
            return 1
            """;

    /** 0 admitted, -1 probe (claimed when ARGV[1] is 1, free otherwise), &gt; 0 refused for that many ms. */
    static final String ADMIT = """
            local open = redis.call('HGET', KEYS[1], 'openUntil')
            if not open then return 0 end
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            open = tonumber(open)
            if now < open then return open - now end
            local probe = tonumber(redis.call('HGET', KEYS[1], 'probeUntil') or '0')
            if now < probe then return probe - now end
            if ARGV[1] == '1' then
              local lease = tonumber(ARGV[2])
              redis.call('HSET', KEYS[1], 'probeUntil', now + lease)
              if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
            end
            return -1
            """;

    static final String RELEASE = """
            if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'probeUntil', 0) end
            return 1
            """;

    static final String PREFIX = "sluice:breaker:";

    private final RedisClient redis;
    private final ClusterEvents events;
    /** breaker → when its open period ends (epoch ms here); the entry lasts as long as the key. */
    private final Mirror<BreakerKey, Long> mirror;
    /** Half-open probes this instance claimed and has not settled: given back when it stops (issue 37). */
    private final java.util.Set<BreakerKey> probing = java.util.concurrent.ConcurrentHashMap.newKeySet();

    RedisBreakerBoard(RedisClient redis, ClusterEvents events, InstantSource clock) {
        this.redis = redis;
        this.events = events;
        this.mirror = new Mirror<>(clock);
    }

    static String key(BreakerKey key) {
        return PREFIX + key.provider() + ":" + key.host();
    }

    @Override
    public void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
        long period = Math.max(1, periodMs);
        long lease = Math.max(1, probeLeaseMs);
        probing.remove(key);
        Mirror.Timed<Long> written = mirror.put(key, mirror.now() + period, period + lease);
        try {
            redis.eval(OPEN, List.of(key(key)), List.of(Long.toString(period), Long.toString(lease)));
            mirror.confirm(key, written);
            events.publish(new BreakerAnnounced(key.provider(), key.host(), period, period + lease));
        } catch (RedisClient.Unavailable e) {
            // this instance's own breaker is open; the others learn of it from their own failures
        }
    }

    @Override
    public void closed(BreakerKey key) {
        probing.remove(key);
        Mirror.Timed<Long> withdrawn = mirror.remove(key);
        try {
            redis.call(j -> j.del(key(key)));
            mirror.confirm(key, withdrawn);
            events.publish(new BreakerAnnounced(key.provider(), key.host(), 0, 0));
        } catch (RedisClient.Unavailable e) {
            // expires on its own
        }
    }

    @Override
    public long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
        if (redis.down()) {
            return ADMITTED;
        }
        Mirror.Timed<Long> announced = mirror.get(key);
        if (announced == null) {
            return ADMITTED;
        }
        long now = mirror.now();
        if (announced.value() > now) {
            return announced.value() - now;
        }
        // half-open: the one probe over all instances is handed out by Redis
        long lease = Math.max(1, probeLeaseMs);
        try {
            Object r = redis.eval(ADMIT, List.of(key(key)), List.of(claim ? "1" : "0", Long.toString(lease)));
            long answer = r instanceof Long l ? l : ADMITTED;
            if (answer == PROBE && claim) {
                probing.add(key);
            }
            if (answer == ADMITTED) {
                mirror.remove(key); // closed or expired meanwhile
            } else if (answer == PROBE && claim && announced.expiresAt() < now + lease) {
                // the claim keeps the key for its lease: so must every mirror, or a peer would admit around the probe
                mirror.put(key, now, lease);
                events.publish(new BreakerAnnounced(key.provider(), key.host(), 0, lease));
            }
            return answer;
        } catch (RedisClient.Unavailable e) {
            return ADMITTED;
        }
    }

    @Override
    public void reset(String provider) {
        forget(provider);
        try {
            redis.deleteMatching(provider == null ? "sluice:breaker:*" : "sluice:breaker:" + RedisClient.globLiteral(provider) + ":*");
        } catch (RedisClient.Unavailable e) {
            // the open periods end on their own
        }
    }

    @Override
    public void released(BreakerKey key) {
        probing.remove(key);
        try {
            redis.eval(RELEASE, List.of(key(key)), List.of());
        } catch (RedisClient.Unavailable e) {
            // the claim ends with its lease
        }
    }

    /**
     * Gives back the probes this instance claimed and has not settled (it is stopping: their
     * requests were ended), so another instance may probe at once instead of after the probe lease.
     */
    void releaseClaims() {
        for (BreakerKey key : List.copyOf(probing)) {
            released(key);
        }
    }

    /** Another instance's announcement. */
    void apply(BreakerAnnounced a) {
        BreakerKey key = new BreakerKey(a.provider(), a.host());
        if (a.keyMs() <= 0) {
            mirror.remove(key);
        } else {
            mirror.put(key, mirror.now() + Math.max(0, a.openMs()), a.keyMs());
        }
    }

    /** @param provider whose breakers an operator reset (null: all) */
    void forget(String provider) {
        mirror.removeIf(k -> provider == null || k.provider().equals(provider));
    }

    /** Reads every announced breaker from Redis into the mirror (at start, after an outage). */
    void reload() {
        long mark = Mirror.mark();
        Map<BreakerKey, Mirror.Timed<Long>> now = new HashMap<>();
        long at = mirror.now();
        Snapshots.read(redis, redis.keys(PREFIX + "*"), (key, ttl, value) -> {
            String rest = key.substring(PREFIX.length());
            int colon = rest.indexOf(':');
            if (colon > 0 && !value.isEmpty()) {
                try {
                    now.put(new BreakerKey(rest.substring(0, colon), rest.substring(colon + 1)), mirror.timed(at + Long.parseLong(value), ttl));
                } catch (IllegalArgumentException e) {
                    // not a key this version wrote
                }
            }
        });
        mirror.replace(now, mark);
    }
}
