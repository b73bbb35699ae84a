package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.gate.shared.SharedPacing;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Start slots over all instances (NF-6, RQ-10): per paced connection one key
 * ({@code sluice:pacing:<connection>}) holding the time of the last start handed out, on the
 * Redis server's clock (so instances' clocks may disagree). Taking a slot is one Lua script:
 * {@code next = max(now, last + spacing)}; when {@code next} lies within the caller's wait bound it
 * becomes the last start, with an expiry of the wait plus three spacings (after that any caller's
 * slot is "now" anyway, so nothing outlives its meaning), and the delay is returned; further ahead,
 * nothing is stored.
 *
 * <p>Redis unreachable: the request is paced by its instance alone ({@link SharedPacing.Slot#LOCAL}:
 * fail open to per-instance spacing), counted in {@link #failedOpen()}.
 */
final class RedisPacing implements SharedPacing {

    /** KEYS[1] the connection's key; ARGV spacing, longest delay; returns {granted 1/0, delay}. */
    static final String NEXT = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local spacing, maxDelay = tonumber(ARGV[1]), tonumber(ARGV[2])
            local nxt = now
            local last = redis.call('GET', KEYS[1])
            if last then
              local due = tonumber(last) + spacing
              if due > nxt then nxt = due end
            end
            local delay = nxt - now
            if delay > maxDelay then return {0, delay} end
            redis.call('SET', KEYS[1], string.format('%d', nxt), 'PX', delay + 3 * spacing)
            return {1, delay}
            """;

    private final RedisClient redis;
    private final AtomicLong failedOpen = new AtomicLong();

    RedisPacing(RedisClient redis) {
        this.redis = redis;
    }

    static String key(String connectionId) {
        return "sluice:pacing:" + connectionId;
    }

    @Override
    public Slot next(String connectionId, long spacingMs, long maxDelayMs) {
        Object got;
        try {
            got = redis.eval(NEXT, List.of(key(connectionId)), List.of(Long.toString(spacingMs), Long.toString(maxDelayMs)));
        } catch (RedisClient.Unavailable e) {
            failedOpen.incrementAndGet();
            return Slot.LOCAL;
        }
        List<?> answer = (List<?>) got;
        long delay = Math.max(0, ((Number) answer.get(1)).longValue());
        return new Slot(Long.valueOf(1).equals(answer.get(0)) ? Kind.GRANTED : Kind.BEYOND, delay);
    }

    /** @return requests paced by their instance alone because Redis could not be reached */
    long failedOpen() {
        return failedOpen.get();
    }
}
