package dev.sluice.runtime.redis;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The one Redis connection pool of an instance (Jedis), with the rules every caller needs: each
 * call bounded by {@link RedisSettings#timeout()} (connect, read and waiting for a pooled
 * connection), Lua scripts run by {@code EVALSHA} (loaded again after a server restart), and an
 * outage logged once when it starts and once when it ends, and counted. Callers get
 * {@link Unavailable} and decide their own fallback.
 */
final class RedisClient implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisClient.class.getName());

    /** A Redis call that failed or timed out. */
    static final class Unavailable extends RuntimeException {
        Unavailable(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private final RedisSettings settings;
    private final UnifiedJedis jedis;
    private final ConcurrentHashMap<String, String> shas = new ConcurrentHashMap<>();
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong failures = new AtomicLong();

    RedisClient(RedisSettings settings) {
        this.settings = settings;
        int ms = (int) settings.timeout().toMillis();
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(ms).socketTimeoutMillis(ms).database(settings.database()).clientName("sluice");
        if (settings.password() != null) {
            config.password(settings.password());
        }
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        pool.setMaxWait(settings.timeout());
        pool.setBlockWhenExhausted(true);
        this.jedis = new JedisPooled(new HostAndPort(settings.host(), settings.port()), config.build(), pool);
    }

    /** Runs one call; a failure becomes {@link Unavailable}, logged once per outage. */
    <T> T call(Function<UnifiedJedis, T> f) {
        try {
            T t = f.apply(jedis);
            if (down.compareAndSet(true, false)) {
                LOG.log(System.Logger.Level.WARNING, "redis " + settings.url() + " answers again: shared state is back in force");
            }
            return t;
        } catch (JedisException | IllegalStateException e) {
            failures.incrementAndGet();
            if (down.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "redis " + settings.url() + " unreachable (" + e.getClass().getSimpleName() + ": "
                        + e.getMessage() + "): permits, pacing and queue depth fall back to each instance's own limits, cooldowns, breakers, model lockouts and provider windows to local state");
            }
            throw new Unavailable(e);
        }
    }

    /** Runs a Lua script by its SHA, loading it first (or again, after a server restart flushed it). */
    Object eval(String script, List<String> keys, List<String> args) {
        return call(j -> {
            String sha = shas.computeIfAbsent(script, s -> j.scriptLoad(s));
            try {
                return j.evalsha(sha, keys, args);
            } catch (JedisNoScriptException e) {
                String again = j.scriptLoad(script);
                shas.put(script, again);
                return j.evalsha(again, keys, args);
            }
        });
    }

    /**
     * Deletes every key matching a pattern ({@code SCAN}, not {@code KEYS}: the server is never
     * blocked for long). For an operator's reset, never the hot path.
     *
     * @param pattern a {@code MATCH} pattern
     * @return the keys deleted
     */
    long deleteMatching(String pattern) {
        return call(j -> {
            long n = 0;
            ScanParams params = new ScanParams().match(pattern).count(500);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = j.scan(cursor, params);
                if (!page.getResult().isEmpty()) {
                    n += j.del(page.getResult().toArray(String[]::new));
                }
                cursor = page.getCursor();
            } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
            return n;
        });
    }

    /**
     * A literal for a {@code MATCH} pattern: glob characters are escaped.
     *
     * @param s the literal
     * @return the escaped text
     */
    static String globLiteral(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    /** @return true when the server answers a PING within the timeout */
    boolean reachable() {
        try {
            return "PONG".equals(call(UnifiedJedis::ping));
        } catch (Unavailable e) {
            return false;
        }
    }

    /** @return whether the last call failed */
    boolean down() {
        return down.get();
    }

    /** @return calls that failed since start */
    long failures() {
        return failures.get();
    }

    RedisSettings settings() {
        return settings;
    }

    @Override
    public void close() {
        jedis.close();
    }
}
