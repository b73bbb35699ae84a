package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.BreakerBoard;
import dev.sluice.runtime.resilience.CooldownBoard;
import dev.sluice.runtime.resilience.LockoutBoard;
import dev.sluice.runtime.resilience.SharedPacing;
import dev.sluice.runtime.resilience.SharedPermits;
import dev.sluice.runtime.resilience.WindowBoard;

/**
 * The hot resilience state an instance shares with the others (NF-6): with
 * {@code SLUICE_REDIS_URL}, permits, start slots of paced connections, the announcements of
 * cooldowns, model lockouts and provider cooldown windows, and breakers' open state and probe in
 * Redis; without it, nothing shared (each mechanism's {@code NONE}). {@link #close()} stops the
 * permit heartbeat and the pool.
 */
public final class SharedState implements AutoCloseable {

    private final RedisClient redis;
    private final RedisPermits permits;
    private final RedisPacing pacing;
    private final CooldownBoard cooldowns;
    private final BreakerBoard breakers;
    private final LockoutBoard lockouts;
    private final WindowBoard windows;

    private SharedState(RedisClient redis) {
        this.redis = redis;
        this.permits = redis == null ? null : new RedisPermits(redis);
        this.pacing = redis == null ? null : new RedisPacing(redis);
        this.cooldowns = redis == null ? CooldownBoard.NONE : new RedisCooldownBoard(redis);
        this.breakers = redis == null ? BreakerBoard.NONE : new RedisBreakerBoard(redis);
        this.lockouts = redis == null ? LockoutBoard.NONE : new RedisLockoutBoard(redis);
        this.windows = redis == null ? WindowBoard.NONE : new RedisWindowBoard(redis);
    }

    /**
     * Connects (lazily: an unreachable server does not stop the start, it is reported by health).
     *
     * @param settings the Redis server, or {@link RedisSettings#NONE}
     * @return the shared state
     */
    public static SharedState open(RedisSettings settings) {
        return new SharedState(settings.configured() ? new RedisClient(settings) : null);
    }

    /**
     * Whether a Redis server answers a {@code PING} within its timeout ({@code bin/sluice doctor}).
     *
     * @param settings the server
     * @return null when it answers, else what went wrong (no password in it)
     */
    public static String problem(RedisSettings settings) {
        try (RedisClient c = new RedisClient(settings)) {
            try {
                c.call(j -> j.ping());
                return null;
            } catch (RedisClient.Unavailable e) {
                String m = e.getMessage() == null ? e.getCause().getClass().getSimpleName() : e.getMessage();
                return settings.password() == null ? m : m.replace(settings.password(), "***");
            }
        }
    }

    /** @return true when state is shared through Redis */
    public boolean configured() {
        return redis != null;
    }

    /** @return the server's URL without password, or null */
    public String url() {
        return redis == null ? null : redis.settings().url();
    }

    /** @return true when Redis answers now (false when none is configured) */
    public boolean reachable() {
        return redis != null && redis.reachable();
    }

    /** @return requests let through on their local permit because Redis could not be reached */
    public long permitsFailedOpen() {
        return permits == null ? 0 : permits.failedOpen();
    }

    /** @return the permits (fail open to the local limit when Redis is unreachable) */
    public SharedPermits permits() {
        return permits == null ? SharedPermits.NONE : permits;
    }

    /** @return requests paced by their instance alone because Redis could not be reached */
    public long pacingFailedOpen() {
        return pacing == null ? 0 : pacing.failedOpen();
    }

    /** @return the start slots of paced connections (fail open to each instance's own spacing when Redis is unreachable) */
    public SharedPacing pacing() {
        return pacing == null ? SharedPacing.NONE : pacing;
    }

    /** @return the cooldown announcements */
    public CooldownBoard cooldowns() {
        return cooldowns;
    }

    /** @return the breakers' shared part */
    public BreakerBoard breakers() {
        return breakers;
    }

    /** @return the model lockout announcements */
    public LockoutBoard lockouts() {
        return lockouts;
    }

    /** @return the provider cooldown window announcements */
    public WindowBoard windows() {
        return windows;
    }

    @Override
    public void close() {
        if (permits != null) {
            permits.close();
        }
        if (redis != null) {
            redis.close();
        }
    }
}
