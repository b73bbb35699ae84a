package dev.sluice.runtime.redis;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The one Redis connection pool of an instance (Jedis), with the rules every caller needs: each
 * call bounded by {@link RedisSettings#timeout()} (connect, read and waiting for a pooled
 * connection), Lua scripts run by {@code EVALSHA} (loaded again after a server restart), and Redis
 * treated as a dependency with a breaker of its own (issue 37): the first call that fails to reach
 * it (a timeout, a refused or lost connection) switches the instance to its local fallback at once
 * — every later call fails fast with {@link Unavailable} without touching the network, so a request
 * meets at most one timeout — and a probe on a daemon thread of its own,
 * {@code sluice-redis-probe}, sends a {@code PING} every {@link #PROBE_EVERY_MS} until it answers.
 * Then shared mode resumes and the {@link #onUp} listeners run (the event channel subscribes again,
 * the boards' mirrors are read again). Each switch is logged once and counted. An error the server
 * answered (a script error, a wrong type) is not an outage: it reaches the caller as
 * {@link Unavailable} and switches nothing.
 */
final class RedisClient implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisClient.class.getName());
    /** How often the probe asks a server this instance switched away from. */
    static final long PROBE_EVERY_MS = 1_000;

    /** A Redis call that failed or timed out, or was not made because Redis is down. */
    static final class Unavailable extends RuntimeException {
        Unavailable(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }

        Unavailable(String message) {
            super(message, null, false, false);
        }
    }

    /** What every call answers while down: one shared instance, so failing fast allocates nothing. */
    private static final Unavailable DOWN = new Unavailable("redis is down: this instance runs on its local fallback until the probe reaches it");

    private final RedisSettings settings;
    private final UnifiedJedis jedis;
    private final ConcurrentHashMap<String, String> shas = new ConcurrentHashMap<>();
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong toLocal = new AtomicLong();
    private final AtomicLong toShared = new AtomicLong();
    private final List<Runnable> onDown = new CopyOnWriteArrayList<>();
    private final List<Runnable> onUp = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService probe;

    /**
     * @param settings the server
     * @param probeEveryMs how often the probe asks while down ({@link #PROBE_EVERY_MS}); 0: no probe thread (tests call
     *     {@link #probe()})
     */
    RedisClient(RedisSettings settings, long probeEveryMs) {
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
        if (probeEveryMs > 0) {
            probe = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sluice-redis-probe");
                t.setDaemon(true);
                return t;
            });
            probe.scheduleWithFixedDelay(this::probe, probeEveryMs, probeEveryMs, TimeUnit.MILLISECONDS);
        } else {
            probe = null;
        }
    }

    /**
     * Runs one call; fails fast while down. A failure to reach the server switches to down.
     *
     * @throws Unavailable when the call failed, or was not made
     */
    <T> T call(Function<UnifiedJedis, T> f) {
        if (down.get()) {
            throw DOWN;
        }
        try {
            return f.apply(jedis);
        } catch (JedisDataException e) {
            throw new Unavailable(e); // the server answered: not an outage
        } catch (JedisException | IllegalStateException e) {
            failures.incrementAndGet();
            switchDown(e);
            throw new Unavailable(e);
        }
    }

    /** Switches to the local fallback (once per outage). */
    void switchDown(Throwable cause) {
        if (down.compareAndSet(false, true)) {
            toLocal.incrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "redis " + settings.url() + " unreachable (" + cause.getClass().getSimpleName() + ": "
                    + cause.getMessage() + "): this instance switches to its local fallback until it answers again (probed every "
                    + PROBE_EVERY_MS + " ms): permits, pacing and queue depth fall back to its own limits, cooldowns, breakers, model"
                    + " lockouts and provider windows to its own state");
            for (Runnable r : onDown) {
                runQuietly(r);
            }
        }
    }

    /**
     * One probe: while down, a {@code PING} straight to the server; when it answers, shared mode
     * resumes and the {@link #onUp} listeners run. Up: nothing.
     */
    void probe() {
        if (!down.get()) {
            return;
        }
        try {
            if (!"PONG".equals(jedis.ping())) {
                return;
            }
        } catch (RuntimeException e) {
            return; // still down
        }
        if (down.compareAndSet(true, false)) {
            toShared.incrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "redis " + settings.url() + " answers again: shared state is back in force");
            for (Runnable r : onUp) {
                runQuietly(r);
            }
        }
    }

    private static void runQuietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "redis: a listener of a switch failed: " + e);
        }
    }

    /** @param r runs (on the failing caller's thread) when this instance switches to its local fallback */
    void onDown(Runnable r) {
        onDown.add(r);
    }

    /** @param r runs (on the probe's thread) when the server answers again */
    void onUp(Runnable r) {
        onUp.add(r);
    }

    /** @return switches to the local fallback since start */
    long switchesToLocal() {
        return toLocal.get();
    }

    /** @return switches back to shared mode since start */
    long switchesToShared() {
        return toShared.get();
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
     * The keys matching a pattern ({@code SCAN}): for reading a board again after an outage, never the hot path.
     *
     * @param pattern a {@code MATCH} pattern
     * @return the keys
     */
    List<String> keys(String pattern) {
        return call(j -> {
            List<String> keys = new java.util.ArrayList<>();
            ScanParams params = new ScanParams().match(pattern).count(500);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = j.scan(cursor, params);
                keys.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
            return keys;
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

    /** @return true when the server answers a PING within the timeout (false at once while down: the probe decides) */
    boolean reachable() {
        try {
            return "PONG".equals(call(UnifiedJedis::ping));
        } catch (Unavailable e) {
            return false;
        }
    }

    /** @return whether this instance runs on its local fallback now */
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
        if (probe != null) {
            probe.shutdownNow();
        }
        jedis.close();
    }
}
