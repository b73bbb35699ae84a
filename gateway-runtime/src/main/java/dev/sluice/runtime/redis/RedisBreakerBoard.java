package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.BreakerBoard;
import dev.sluice.runtime.resilience.BreakerKey;
import java.util.List;

/**
 * The shared part of circuit breakers (NF-6): one hash per breaker,
 * {@code sluice:breaker:<provider>:<host>}, with {@code openUntil} and {@code probeUntil} on the
 * Redis server's clock. Open: refused until {@code openUntil}. After it: half-open, and the one
 * caller that claims the probe (a compare-and-set in Lua) holds it until its outcome or
 * {@code probeUntil}. The key expires {@code probe lease} after the open period, so a breaker
 * nobody probes is forgotten rather than kept forever. Unreachable: admitted, the local breaker
 * alone decides.
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

    private final RedisClient redis;

    RedisBreakerBoard(RedisClient redis) {
        this.redis = redis;
    }

    static String key(BreakerKey key) {
        return "sluice:breaker:" + key.provider() + ":" + key.host();
    }

    @Override
    public void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
        try {
            redis.eval(OPEN, List.of(key(key)), List.of(Long.toString(Math.max(1, periodMs)), Long.toString(Math.max(1, probeLeaseMs))));
        } catch (RedisClient.Unavailable e) {
            // this instance's own breaker is open; the others learn of it from their own failures
        }
    }

    @Override
    public void closed(BreakerKey key) {
        try {
            redis.call(j -> j.del(key(key)));
        } catch (RedisClient.Unavailable e) {
            // expires on its own
        }
    }

    @Override
    public long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
        try {
            Object r = redis.eval(ADMIT, List.of(key(key)), List.of(claim ? "1" : "0", Long.toString(Math.max(1, probeLeaseMs))));
            return r instanceof Long l ? l : ADMITTED;
        } catch (RedisClient.Unavailable e) {
            return ADMITTED;
        }
    }

    @Override
    public void reset(String provider) {
        try {
            redis.deleteMatching(provider == null ? "sluice:breaker:*" : "sluice:breaker:" + RedisClient.globLiteral(provider) + ":*");
        } catch (RedisClient.Unavailable e) {
            // the open periods end on their own
        }
    }

    @Override
    public void released(BreakerKey key) {
        try {
            redis.eval(RELEASE, List.of(key(key)), List.of());
        } catch (RedisClient.Unavailable e) {
            // the claim ends with its lease
        }
    }
}
