package dev.sluice.runtime.redis;

import dev.sluice.runtime.oauth.RefreshLocks;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.params.SetParams;

/**
 * The cluster lock of an OAuth refresh (issue 36): {@code SET sluice:oauth-refresh:<connection>
 * <token> NX PX ttl}; the holder frees it with a compare-and-delete script, so a lock that expired
 * and was taken by another instance is never freed by the first. Redis unreachable (or down):
 * {@link RefreshLocks.Claim#LOCAL}, the instance refreshes on its own, counted in
 * {@link #failedOpen()}.
 */
final class RedisRefreshLocks implements RefreshLocks {

    /** KEYS[1] the lock; ARGV[1] the holder's token. Deletes the lock only when this holder still has it. */
    static final String RELEASE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return redis.call('DEL', KEYS[1])
            end
            return 0
            """;

    private final RedisClient redis;
    private final AtomicLong failedOpen = new AtomicLong();

    RedisRefreshLocks(RedisClient redis) {
        this.redis = redis;
    }

    static String key(String connectionId) {
        return "sluice:oauth-refresh:" + connectionId;
    }

    @Override
    public Claim claim(String connectionId, long ttlMs) {
        String key = key(connectionId);
        String token = UUID.randomUUID().toString();
        String answer;
        try {
            answer = redis.call(j -> j.set(key, token, SetParams.setParams().nx().px(ttlMs)));
        } catch (RedisClient.Unavailable e) {
            failedOpen.incrementAndGet();
            return Claim.LOCAL;
        }
        if (!"OK".equals(answer)) {
            return Claim.ELSEWHERE;
        }
        return new Claim() {
            @Override
            public Outcome outcome() {
                return Outcome.HELD;
            }

            @Override
            public void close() {
                try {
                    redis.eval(RELEASE, List.of(key), List.of(token));
                } catch (RedisClient.Unavailable e) {
                    // it expires on its own
                }
            }
        };
    }

    /** @return refreshes done without the cluster lock because Redis could not be reached */
    long failedOpen() {
        return failedOpen.get();
    }
}
