package dev.sluice.runtime.redis;

import dev.sluice.runtime.combo.strategy.RoundRobinTurns;
import java.util.ArrayList;
import java.util.List;

/**
 * Round-robin's turns shared by the instances (issue 37): each combo's previous start in
 * {@code sluice:rr:<combo>}, read and moved on in one script, so three instances serving one combo
 * take the targets in turn as one would. One Redis call per round-robin request; the key lives a day
 * after its last turn. Unreachable Redis: this instance takes its turns from its own memory until it
 * answers again (the cluster's order is lost meanwhile, nothing else).
 */
final class RedisTurns implements RoundRobinTurns {

    static final String PREFIX = "sluice:rr:";
    private static final long TTL_MS = 24 * 3_600_000L;

    /** KEYS[1] the turn; ARGV[1] its TTL; ARGV[2..] the eligible indexes, ascending → the new start. */
    private static final String TAKE = """
            local prev = tonumber(redis.call('GET', KEYS[1]) or '-1')
            local start = tonumber(ARGV[2])
            for i = 2, #ARGV do
              local v = tonumber(ARGV[i])
              if v > prev then start = v; break end
            end
            redis.call('SET', KEYS[1], start, 'PX', ARGV[1])
            return start
            """;

    private final RedisClient redis;
    private final RoundRobinTurns local = RoundRobinTurns.local();

    RedisTurns(RedisClient redis) {
        this.redis = redis;
    }

    @Override
    public int take(String combo, int[] ascendingIndexes) {
        List<String> args = new ArrayList<>(ascendingIndexes.length + 1);
        args.add(Long.toString(TTL_MS));
        for (int index : ascendingIndexes) {
            args.add(Integer.toString(index));
        }
        try {
            Object start = redis.eval(TAKE, List.of(PREFIX + combo), args);
            return ((Long) start).intValue();
        } catch (RedisClient.Unavailable e) {
            return local.take(combo, ascendingIndexes);
        }
    }

    @Override
    public int previous(String combo) {
        try {
            String v = redis.call(j -> j.get(PREFIX + combo));
            return v == null ? NO_START_YET : Integer.parseInt(v);
        } catch (RedisClient.Unavailable e) {
            return local.previous(combo);
        }
    }

    @Override
    public void forget(String combo) {
        local.forget(combo);
        try {
            redis.call(j -> j.del(PREFIX + combo));
        } catch (RedisClient.Unavailable e) {
            // it expires on its own
        }
    }
}
