package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.gate.shared.SharedPermits;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrency permits over all instances (NF-6): per connection one sorted set of permit ids
 * ({@code sluice:permits:<connection>}) and per connection and model another
 * ({@code sluice:permits:<connection>:model:<model>}), each member scored by its expiry on the
 * Redis server's clock (so instances' clocks may disagree). Acquiring is one Lua script: drop
 * expired members, check both counts against their caps, add to both — all or nothing. A daemon
 * thread renews the permits this instance holds every {@link #RENEWALS_PER_TTL}th of
 * {@link RedisSettings#permitTtl()} (default 5 s: every second); a killed instance stops renewing,
 * and its permits expire that long after its last renewal, while a live holder paused for up to
 * four fifths of it keeps them. {@link #close()} — the instance stopping — gives back every permit
 * and place it still holds at once, so the others see them free without waiting for the expiry.
 * Every key expires with its last permit. The same heartbeat renews the shared queue places of
 * {@link RedisWaiters} ({@link #lease}), so they expire with a killed instance the same way.
 *
 * <p>Redis unreachable: the request is let through on its instance's local permit
 * ({@link SharedPermits.Held#LOCAL}: fail open to the local limit), counted in {@link #failedOpen()}.
 */
final class RedisPermits implements SharedPermits, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisPermits.class.getName());
    /** Renewals per permit expiry: the heartbeat's period is the expiry divided by this. */
    static final int RENEWALS_PER_TTL = 5;

    static final String ACQUIRE = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local ccap, mcap, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
            if ccap > 0 then
              redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
              if redis.call('ZCARD', KEYS[1]) >= ccap then return 0 end
            end
            if mcap > 0 then
              redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
              if redis.call('ZCARD', KEYS[2]) >= mcap then return 0 end
            end
            if ccap > 0 then
              redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
              redis.call('PEXPIRE', KEYS[1], ttl)
            end
            if mcap > 0 then
              redis.call('ZADD', KEYS[2], now + ttl, ARGV[3])
              redis.call('PEXPIRE', KEYS[2], ttl)
            end
            return 1
            """;

    /** Renews one permit where it is still held; returns how many of its sets still held it. */
    static final String RENEW = """
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local ttl, held = tonumber(ARGV[2]), 0
            for i = 1, #KEYS do
              local s = redis.call('ZSCORE', KEYS[i], ARGV[1])
              if s and tonumber(s) > now then
                redis.call('ZADD', KEYS[i], now + ttl, ARGV[1])
                redis.call('PEXPIRE', KEYS[i], ttl)
                held = held + 1
              end
            end
            return held
            """;

    static final String RELEASE = """
            for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
            return 1
            """;

    private final RedisClient redis;
    private final long ttlMs;
    private final Set<Permit> held = ConcurrentHashMap.newKeySet();
    private final AtomicLong failedOpen = new AtomicLong();
    private final ScheduledExecutorService heartbeat;

    RedisPermits(RedisClient redis) {
        this.redis = redis;
        this.ttlMs = redis.settings().permitTtl().toMillis();
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-permit-heartbeat");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(100, ttlMs / RENEWALS_PER_TTL);
        heartbeat.scheduleWithFixedDelay(this::renewAll, every, every, TimeUnit.MILLISECONDS);
    }

    static String connectionKey(String connectionId) {
        return "sluice:permits:" + connectionId;
    }

    static String modelKey(String connectionId, String model) {
        return "sluice:permits:" + connectionId + ":model:" + model;
    }

    @Override
    public Held tryAcquire(String connectionId, String model, int connectionCap, int modelCap) {
        String id = UUID.randomUUID().toString();
        String ck = connectionKey(connectionId);
        String mk = modelKey(connectionId, model);
        Object got;
        try {
            got = redis.eval(ACQUIRE, List.of(ck, mk), List.of(Integer.toString(connectionCap), Integer.toString(modelCap), id,
                    Long.toString(ttlMs)));
        } catch (RedisClient.Unavailable e) {
            failedOpen.incrementAndGet();
            return Held.LOCAL;
        }
        if (!Long.valueOf(1).equals(got)) {
            return null;
        }
        List<String> keys = connectionCap > 0 && modelCap > 0 ? List.of(ck, mk) : connectionCap > 0 ? List.of(ck) : List.of(mk);
        return lease(id, keys);
    }

    /**
     * Keeps a member just added to sorted sets scored by expiry alive with this instance's heartbeat
     * until it is released ({@code ZREM} from each set).
     *
     * @param id the member
     * @param keys the sorted sets holding it
     * @return the release
     */
    Held lease(String id, List<String> keys) {
        Permit p = new Permit(id, keys);
        held.add(p);
        return p;
    }

    /** A permit (or shared queue place) this instance holds. */
    private final class Permit implements Held {
        private final String id;
        private final List<String> keys;
        private final AtomicBoolean released = new AtomicBoolean();

        Permit(String id, List<String> keys) {
            this.id = id;
            this.keys = keys;
        }

        @Override
        public void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            held.remove(this);
            try {
                redis.eval(RELEASE, keys, List.of(id));
            } catch (RedisClient.Unavailable e) {
                // it expires on its own within the permit expiry
            }
        }
    }

    private void renewAll() {
        for (Permit p : held) {
            try {
                Object n = redis.eval(RENEW, p.keys, List.of(p.id, Long.toString(ttlMs)));
                if (Long.valueOf(0).equals(n) && !p.released.get()) {
                    LOG.log(System.Logger.Level.WARNING, "a shared permit or queue place on " + p.keys.getFirst() + " had expired before its renewal"
                            + " (redis was unreachable longer than the permit expiry of " + ttlMs + " ms)");
                }
            } catch (RedisClient.Unavailable e) {
                // logged by the client once per outage; the next round tries again
            }
        }
    }

    /** @return requests let through on their local permit because Redis could not be reached */
    long failedOpen() {
        return failedOpen.get();
    }

    /** @return permits (and shared queue places) this instance holds now */
    int held() {
        return held.size();
    }

    /** Stops renewing and gives back every permit and queue place still held (issue 37.1: a stopping instance frees them at once). */
    @Override
    public void close() {
        heartbeat.shutdownNow();
        for (Permit p : held) {
            p.release(); // fails fast when Redis is down: then they expire with the permit expiry
        }
    }
}
