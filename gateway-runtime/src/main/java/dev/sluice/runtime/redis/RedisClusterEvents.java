package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPubSub;

/**
 * The instances' event channel over Redis pub/sub (NF-6): {@code PUBLISH sluice:events:<db>}
 * through the pool (bounded by the call timeout, never throwing: Redis down, the change stays
 * local), and one {@code SUBSCRIBE} on a connection of its own held by a daemon thread,
 * {@code sluice-redis-events}. A lost subscription is logged once, retried after 100 ms doubling to
 * 5 s, and logged again when it is back; events published meanwhile are lost to this instance (the
 * shared keys of breakers, cooldowns, lockouts and windows still hold what they hold). A subscription
 * that went silent — a partition or a frozen server that sends no reset — is found by a
 * {@code PING} on it every {@link #PING_EVERY_MS}: with nothing heard for three of them the
 * connection is dropped and subscribed again. Each message carries its sender's instance id, and an
 * instance ignores its own.
 *
 * <p>Every event goes first to the shared boards' mirrors ({@link #feed}), then to the receiver of
 * {@link #subscribe}; after every (re-)subscription the {@code subscribed} hook reads the boards
 * again from Redis, since events published while this instance was not subscribed are lost to it.
 * When the {@link RedisClient} switches to its local fallback the subscription is dropped at once,
 * and it is not tried again until the client's probe finds Redis answering (issue 37).
 */
final class RedisClusterEvents implements ClusterEvents, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RedisClusterEvents.class.getName());
    static final long FIRST_RETRY_MS = 100;
    static final long LAST_RETRY_MS = 5_000;
    /** How often the subscription is pinged; silent for three times this, it is dropped. */
    static final long PING_EVERY_MS = 5_000;

    private final RedisClient redis;
    private final String instanceId;
    private final String channel;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final AtomicLong received = new AtomicLong();
    private final long pingEveryMs;
    private volatile long lastHeardNanos;
    private volatile ScheduledExecutorService pinger;
    private volatile boolean closed;
    private volatile Thread thread;
    private volatile Connection connection;
    private volatile JedisPubSub pubSub;
    private volatile Consumer<ClusterEvent> receiver;
    private volatile Consumer<ClusterEvent> boards;
    private volatile Runnable onSubscribed;
    private final Object upSignal = new Object();

    /**
     * @param redis the server
     * @param instanceId this instance, so that it ignores its own events
     * @param pingEveryMs how often the subscriber's connection is checked ({@link #PING_EVERY_MS})
     */
    RedisClusterEvents(RedisClient redis, String instanceId, long pingEveryMs) {
        this.redis = redis;
        this.pingEveryMs = pingEveryMs;
        this.instanceId = instanceId;
        this.channel = "sluice:events:" + redis.settings().database();
    }

    @Override
    public void publish(ClusterEvent event) {
        String message = event.encode(instanceId);
        if (closed || message == null) {
            return;
        }
        try {
            redis.call(j -> j.publish(channel, message));
        } catch (RuntimeException e) {
            // Redis down: the change holds on this instance only (RedisClient logged the outage)
        }
    }

    /**
     * Where every event goes before the receiver, and what runs after each subscription: the
     * shared boards' mirrors (set before {@link #start}).
     *
     * @param boards applies an announcement (or a reset) to the mirrors
     * @param subscribed reads the boards again from Redis
     */
    void feed(Consumer<ClusterEvent> boards, Runnable subscribed) {
        this.boards = boards;
        this.onSubscribed = subscribed;
        redis.onDown(this::drop);
        redis.onUp(this::wake);
    }

    @Override
    public void subscribe(Consumer<ClusterEvent> receiver) {
        if (this.receiver != null) {
            throw new IllegalStateException("already subscribed");
        }
        this.receiver = receiver;
        start();
    }

    /** Starts following the channel (once; {@link #subscribe} starts it too). */
    void start() {
        if (!started.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(this::follow, "sluice-redis-events");
        t.setDaemon(true);
        thread = t;
        t.start();
        ScheduledExecutorService p = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread pt = new Thread(r, "sluice-redis-events-ping");
            pt.setDaemon(true);
            return pt;
        });
        pinger = p;
        p.scheduleWithFixedDelay(this::ping, pingEveryMs, pingEveryMs, TimeUnit.MILLISECONDS);
    }

    /** Pings the subscription; drops it when it has been silent too long (the subscriber then subscribes again). */
    private void ping() {
        JedisPubSub ps = pubSub;
        Connection c = connection;
        if (ps == null || c == null || !ps.isSubscribed()) {
            return;
        }
        try {
            if (System.nanoTime() - lastHeardNanos > TimeUnit.MILLISECONDS.toNanos(3 * pingEveryMs)) {
                c.close();
            } else {
                ps.ping();
            }
        } catch (RuntimeException e) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // already closed
            }
        }
    }

    /** Drops the subscription (Redis switched to down): it subscribes again once the probe finds Redis. */
    private void drop() {
        Connection c = connection;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // already closed
            }
        }
    }

    /** Redis answers again: subscribe now rather than after the back-off. */
    private void wake() {
        synchronized (upSignal) {
            upSignal.notifyAll();
        }
    }

    /** Waits while the client is down (its probe wakes this thread), or for {@code ms} when it is up. */
    private void pause(long ms) throws InterruptedException {
        synchronized (upSignal) {
            if (redis.down()) {
                while (redis.down() && !closed) {
                    upSignal.wait(RedisClient.PROBE_EVERY_MS);
                }
            } else {
                upSignal.wait(ms);
            }
        }
    }

    /** Subscribes, and again after every loss, until closed. */
    private void follow() {
        long retryMs = FIRST_RETRY_MS;
        boolean outage = false;
        while (!closed) {
            if (redis.down()) {
                try {
                    pause(0);
                } catch (InterruptedException e) {
                    break; // closed
                }
                continue;
            }
            boolean[] wasUp = {false};
            boolean[] outageNow = {outage};
            String problem;
            try (Connection c = new Connection(new HostAndPort(redis.settings().host(), redis.settings().port()), config())) {
                connection = c;
                JedisPubSub ps = new JedisPubSub() {
                    @Override
                    public void onSubscribe(String ch, int count) {
                        lastHeardNanos = System.nanoTime();
                        subscribed.set(true);
                        wasUp[0] = true;
                        if (outageNow[0]) {
                            outageNow[0] = false;
                            LOG.log(System.Logger.Level.WARNING, "redis events: subscribed again to " + channel);
                        }
                        Runnable reload = onSubscribed;
                        if (reload != null) {
                            try {
                                reload.run(); // what was announced while not subscribed; events after it queue on the socket
                            } catch (RuntimeException e) {
                                LOG.log(System.Logger.Level.WARNING, "redis events: could not read the shared boards again: " + e);
                            }
                        }
                    }

                    @Override
                    public void onMessage(String ch, String message) {
                        lastHeardNanos = System.nanoTime();
                        deliver(message);
                    }

                    @Override
                    public void onPong(String pattern) {
                        lastHeardNanos = System.nanoTime();
                    }
                };
                pubSub = ps;
                if (closed) {
                    break;
                }
                ps.proceed(c, channel); // returns when unsubscribed; throws when the connection is lost
                problem = "unsubscribed";
            } catch (RuntimeException e) {
                problem = e.getClass().getSimpleName() + ": " + e.getMessage();
            } finally {
                subscribed.set(false);
                connection = null;
            }
            outage = outageNow[0];
            if (closed) {
                break;
            }
            if (wasUp[0]) {
                retryMs = FIRST_RETRY_MS;
            }
            if (!outage) {
                outage = true;
                LOG.log(System.Logger.Level.WARNING, "redis events: not subscribed to " + channel + " (" + problem
                        + "): changes other instances announce (pauses, learned pacing, resets, clears) do not reach this one until it is back;"
                        + " retrying");
            }
            try {
                pause(retryMs);
            } catch (InterruptedException e) {
                break; // closed
            }
            retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
        }
    }

    private void deliver(String message) {
        ClusterEvent.Received r = ClusterEvent.decode(message);
        if (r == null || instanceId.equals(r.sender())) {
            return; // another version's format, or this instance's own
        }
        received.incrementAndGet();
        try {
            Consumer<ClusterEvent> b = boards;
            if (b != null) {
                b.accept(r.event());
            }
            Consumer<ClusterEvent> to = receiver;
            if (to != null) {
                to.accept(r.event());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "redis events: could not apply " + r.event() + ": " + e);
        }
    }

    private DefaultJedisClientConfig config() {
        RedisSettings s = redis.settings();
        int ms = (int) s.timeout().toMillis();
        // the subscription reads with no timeout (it waits for events); connecting is bounded
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder().connectionTimeoutMillis(ms).socketTimeoutMillis(ms)
                .database(s.database()).clientName("sluice-events");
        if (s.password() != null) {
            b.password(s.password());
        }
        return b.build();
    }

    /** @return true while the subscription is in force */
    boolean subscribed() {
        return subscribed.get();
    }

    /** @return other instances' events received since start */
    long received() {
        return received.get();
    }

    @Override
    public void close() {
        closed = true;
        wake();
        ScheduledExecutorService p = pinger;
        if (p != null) {
            p.shutdownNow();
        }
        JedisPubSub ps = pubSub;
        if (ps != null && ps.isSubscribed()) {
            try {
                ps.unsubscribe();
            } catch (RuntimeException e) {
                // the connection is closed below anyway
            }
        }
        Connection c = connection;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // closing
            }
        }
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
