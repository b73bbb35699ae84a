package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.gate.shared.SharedWaiters;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Queue places over all instances (NF-6, RQ-5): per connection one sorted set of waiting requests'
 * tokens ({@code sluice:waiting:<connection>}), each scored by its expiry on the Redis server's
 * clock. Joining is one Lua script: drop expired members, refuse when the set already holds
 * {@code maxQueueDepth}, else add the token. The token is renewed by the permits' heartbeat
 * ({@link RedisPermits#lease}) and removed when the request starts or leaves; a killed instance's
 * tokens expire one {@link RedisSettings#permitTtl()} after their last renewal, and the key with
 * its last token.
 *
 * <p>Redis unreachable: the request waits under its instance's own depth only
 * ({@link SharedWaiters.Place#LOCAL}: fail open to per-instance depth), counted in {@link #failedOpen()}.
 */
final class RedisWaiters implements SharedWaiters {

    /** KEYS[1] the connection's set; ARGV depth, token, expiry ms; returns 1 joined, 0 full. */
    static final String JOIN = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local depth, ttl = tonumber(ARGV[1]), tonumber(ARGV[3])
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            if redis.call('ZCARD', KEYS[1]) >= depth then return 0 end
            redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
            redis.call('PEXPIRE', KEYS[1], ttl)
            return 1
            """;

    private final RedisClient redis;
    private final RedisPermits heartbeat;
    private final long ttlMs;
    private final AtomicLong failedOpen = new AtomicLong();

    RedisWaiters(RedisClient redis, RedisPermits heartbeat) {
        this.redis = redis;
        this.heartbeat = heartbeat;
        this.ttlMs = redis.settings().permitTtl().toMillis();
    }

    static String key(String connectionId) {
        return "sluice:waiting:" + connectionId;
    }

    @Override
    public Place tryJoin(String connectionId, int maxQueueDepth) {
        String id = UUID.randomUUID().toString();
        String key = key(connectionId);
        Object got;
        try {
            got = redis.eval(JOIN, List.of(key), List.of(Integer.toString(maxQueueDepth), id, Long.toString(ttlMs)));
        } catch (RedisClient.Unavailable e) {
            failedOpen.incrementAndGet();
            return Place.LOCAL;
        }
        if (!Long.valueOf(1).equals(got)) {
            return null;
        }
        return heartbeat.lease(id, List.of(key))::release;
    }

    /** @return requests queued under their instance's own depth because Redis could not be reached */
    long failedOpen() {
        return failedOpen.get();
    }
}
