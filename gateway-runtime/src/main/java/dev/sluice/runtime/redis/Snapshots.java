package dev.sluice.runtime.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads what some keys of a shared board hold and how long they last, in batches of one script
 * each: for the boards' {@link Mirror}s at start and after an outage, never on the request path.
 * A string key gives its value; a breaker's hash gives the ms its open period has left, on the
 * server's clock.
 */
final class Snapshots {

    /** Keys per script. */
    static final int BATCH = 200;

    /** KEYS: the keys; answers per key {ttl ms, value} ('' for none), on the server's clock. */
    static final String READ = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local out = {}
            for i = 1, #KEYS do
              local ttl = redis.call('PTTL', KEYS[i])
              local v = ''
              local kind = redis.call('TYPE', KEYS[i]).ok
              if kind == 'string' then
                v = redis.call('GET', KEYS[i])
              elseif kind == 'hash' then
                local open = redis.call('HGET', KEYS[i], 'openUntil')
                if open then v = tostring(tonumber(open) - now) end
              end
              out[i] = {ttl, v}
            end
            return out
            """;

    /** One key's state. */
    @FunctionalInterface
    interface Sink {
        /**
         * @param key the key
         * @param ttlMs ms it lasts (&gt; 0)
         * @param value its value (see {@link Snapshots})
         */
        void accept(String key, long ttlMs, String value);
    }

    private Snapshots() {
    }

    /**
     * Reads the keys; those without an expiry or gone meanwhile are skipped.
     *
     * @param redis the client
     * @param keys the keys
     * @param sink receives each key in force
     */
    static void read(RedisClient redis, List<String> keys, Sink sink) {
        for (int from = 0; from < keys.size(); from += BATCH) {
            List<String> batch = new ArrayList<>(keys.subList(from, Math.min(keys.size(), from + BATCH)));
            if (!(redis.eval(READ, batch, List.of()) instanceof List<?> rows)) {
                continue;
            }
            for (int i = 0; i < rows.size() && i < batch.size(); i++) {
                if (rows.get(i) instanceof List<?> row && row.size() == 2 && row.get(0) instanceof Long ttl && ttl > 0) {
                    Object v = row.get(1);
                    sink.accept(batch.get(i), ttl, v == null ? "" : v.toString());
                }
            }
        }
    }
}
