package dev.sluice.runtime.redis;

import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.breaker.shared.BreakerBoard;
import dev.sluice.runtime.resilience.cooldown.shared.CooldownBoard;
import dev.sluice.runtime.resilience.gate.shared.SharedGates;
import dev.sluice.runtime.resilience.gate.shared.SharedPacing;
import dev.sluice.runtime.resilience.gate.shared.SharedPermits;
import dev.sluice.runtime.resilience.gate.shared.SharedWaiters;
import dev.sluice.runtime.resilience.lockout.shared.LockoutBoard;
import dev.sluice.runtime.resilience.window.shared.WindowBoard;
import java.time.InstantSource;

/**
 * The hot resilience state an instance shares with the others (NF-6): with
 * {@code SLUICE_REDIS_URL}, permits, queue places, start slots of paced connections, the announcements of
 * cooldowns, model lockouts and provider cooldown windows, breakers' open state and probe, and
 * plugins' shared notes in Redis, and the event channel on which instances announce the changes
 * they keep in memory (queue pauses, learned pacing, resets and clears); without it, nothing shared
 * (each mechanism's {@code NONE}). {@link #close()} gives back the permits, queue places and
 * half-open probe claims this instance holds, then stops the event subscription, the permit
 * heartbeat and the pool.
 */
public final class SharedState implements AutoCloseable {

    private final RedisClient redis;
    private final RedisPermits permits;
    private final RedisPacing pacing;
    private final RedisWaiters waiters;
    private final RedisCooldownBoard cooldowns;
    private final RedisBreakerBoard breakers;
    private final RedisLockoutBoard lockouts;
    private final RedisWindowBoard windows;
    private final RedisClusterEvents events;
    private final RedisRefreshLocks refreshLocks;
    private final dev.sluice.runtime.combo.strategy.RoundRobinTurns turns;
    private final String instanceId;

    private SharedState(RedisClient redis, String instanceId, InstantSource clock) {
        this.redis = redis;
        this.instanceId = instanceId;
        this.events = redis == null ? null : new RedisClusterEvents(redis, instanceId, RedisClusterEvents.PING_EVERY_MS);
        this.permits = redis == null ? null : new RedisPermits(redis);
        this.pacing = redis == null ? null : new RedisPacing(redis);
        this.waiters = redis == null ? null : new RedisWaiters(redis, permits);
        this.cooldowns = redis == null ? null : new RedisCooldownBoard(redis, events, clock);
        this.breakers = redis == null ? null : new RedisBreakerBoard(redis, events, clock);
        this.lockouts = redis == null ? null : new RedisLockoutBoard(redis, events, clock);
        this.windows = redis == null ? null : new RedisWindowBoard(redis, events, clock);
        this.refreshLocks = redis == null ? null : new RedisRefreshLocks(redis);
        this.turns = redis == null ? dev.sluice.runtime.combo.strategy.RoundRobinTurns.local() : new RedisTurns(redis);
        if (events != null) {
            // issue 26: the boards' mirrors follow the others' writes, and are read again after every (re-)subscription
            events.feed(this::mirror, this::reload);
            events.start();
        }
    }

    /**
     * Connects (lazily: an unreachable server does not stop the start, it is reported by health).
     *
     * @param settings the Redis server, or {@link RedisSettings#NONE}
     * @param clock the instance's clock (the boards' mirrors keep expiries on it)
     * @return the shared state
     */
    public static SharedState open(RedisSettings settings, InstantSource clock) {
        return new SharedState(settings.configured() ? new RedisClient(settings, RedisClient.PROBE_EVERY_MS) : null,
                java.util.UUID.randomUUID().toString().substring(0, 8), clock);
    }

    /** Applies another instance's event to the boards' mirrors. */
    private void mirror(ClusterEvent event) {
        switch (event) {
            case ClusterEvent.CooldownAnnounced c -> cooldowns.apply(c);
            case ClusterEvent.WindowAnnounced w -> windows.apply(w);
            case ClusterEvent.BreakerAnnounced b -> breakers.apply(b);
            case ClusterEvent.LockAnnounced l -> lockouts.apply(l);
            case ClusterEvent.LocksWithdrawn w -> lockouts.apply(w);
            case ClusterEvent.BreakersReset r -> {
                breakers.forget(r.provider());
                if (r.provider() == null) {
                    windows.forgetAll();
                }
            }
            case ClusterEvent.ConnectionCleared c -> {
                cooldowns.forget(c.connectionId());
                lockouts.apply(new ClusterEvent.LocksWithdrawn(c.connectionId(), java.util.List.of()));
            }
            default -> {
                // the receiver's business (ClusterSync)
            }
        }
    }

    /** Reads every board's mirror again from Redis (after a subscription: what was announced meanwhile). */
    private void reload() {
        try {
            cooldowns.reload();
            windows.reload();
            breakers.reload();
            lockouts.reload();
        } catch (RedisClient.Unavailable e) {
            // down again: the next subscription reads them again
        }
    }

    /** @return the client (tests) */
    RedisClient client() {
        return redis;
    }

    /** @return 1 while this instance runs on its local fallback because Redis cannot be reached, else 0 */
    public long fallback() {
        return redis != null && redis.down() ? 1 : 0;
    }

    /** @return switches to the local fallback since start */
    public long switchesToLocal() {
        return redis == null ? 0 : redis.switchesToLocal();
    }

    /** @return switches back to shared mode since start */
    public long switchesToShared() {
        return redis == null ? 0 : redis.switchesToShared();
    }

    /** @return this instance's id among those sharing the stores: random per start, carried by its events */
    public String instanceId() {
        return instanceId;
    }

    /** @return the channel of change announcements between instances ({@link ClusterEvents#NONE} without Redis) */
    public ClusterEvents events() {
        return events == null ? ClusterEvents.NONE : events;
    }

    /** @return true while this instance receives the other instances' announcements */
    public boolean eventsSubscribed() {
        return events != null && events.subscribed();
    }

    /**
     * Whether a Redis server answers a {@code PING} within its timeout ({@code bin/sluice doctor}).
     *
     * @param settings the server
     * @return null when it answers, else what went wrong (no password in it)
     */
    public static String problem(RedisSettings settings) {
        try (RedisClient c = new RedisClient(settings, RedisClient.PROBE_EVERY_MS)) {
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

    /** @return what the gates share: permits, start slots and queue places */
    public SharedGates gates() {
        return new SharedGates(permits(), pacing(), waiters());
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

    /** @return requests queued under their instance's own depth because Redis could not be reached */
    public long queueFailedOpen() {
        return waiters == null ? 0 : waiters.failedOpen();
    }

    /** @return the queue places (fail open to each instance's own queue depth when Redis is unreachable) */
    public SharedWaiters waiters() {
        return waiters == null ? SharedWaiters.NONE : waiters;
    }

    /** @return the cooldown announcements */
    public CooldownBoard cooldowns() {
        return cooldowns == null ? CooldownBoard.NONE : cooldowns;
    }

    /** @return the breakers' shared part */
    public BreakerBoard breakers() {
        return breakers == null ? BreakerBoard.NONE : breakers;
    }

    /** @return the model lockout announcements */
    public LockoutBoard lockouts() {
        return lockouts == null ? LockoutBoard.NONE : lockouts;
    }

    /**
     * The notes one plugin shares with the other instances ({@code HostContext.sharedNotes()}).
     *
     * @param plugin the plugin's name
     * @return the notes, or empty without Redis
     */
    public java.util.Optional<dev.sluice.api.SharedNotes> notes(String plugin) {
        return redis == null ? java.util.Optional.empty() : java.util.Optional.of(new RedisSharedNotes(redis, plugin));
    }

    /** @return the cluster lock of OAuth token refreshes (issue 36; each instance on its own without Redis or while it is down) */
    public dev.sluice.runtime.oauth.RefreshLocks refreshLocks() {
        return refreshLocks == null ? dev.sluice.runtime.oauth.RefreshLocks.NONE : refreshLocks;
    }

    /** @return where round-robin's turns live: in Redis (one call per round-robin request), else this instance's memory */
    public dev.sluice.runtime.combo.strategy.RoundRobinTurns turns() {
        return turns;
    }

    /** @return the provider cooldown window announcements */
    public WindowBoard windows() {
        return windows == null ? WindowBoard.NONE : windows;
    }

    @Override
    public void close() {
        if (permits != null) {
            permits.close(); // first: the other instances see this one's permits free at once
            breakers.releaseClaims(); // and a half-open probe it claimed, rather than after the probe lease
        }
        if (events != null) {
            events.close();
        }
        if (redis != null) {
            redis.close();
        }
    }
}
