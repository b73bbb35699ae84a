package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.Mechanism;
import java.time.InstantSource;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Local admission in front of each connection: the caps of SPEC §12 (QC-1 {@code maxConcurrent},
 * QC-2 per-model caps) and the request queue of §14 (RQ-1 queue wait bound, RQ-4 pacing pause,
 * RQ-5 queue depth). One gate per connection; a request either starts at once, or waits in the
 * gate's FIFO queue until every limit that holds it lets it start, or is refused without anything
 * being sent upstream.
 *
 * <p>The account permit and the model permit are taken together under the gate's lock, so the
 * compound gate is atomic: no request ever holds one while waiting for the other (no deadlock), and
 * a refusal, a timeout, a client that left or an exception never leaves a permit taken. A waiter
 * starts when it is the first waiter in queue order that may start: a waiter held by its model's cap
 * does not hold back a waiter for another model.
 *
 * <p>Nothing here throttles on its own (RQ-10): with no cap configured and no pause in force, a
 * request passes without taking the lock. Waiting parks the request's virtual thread on a
 * condition (no busy loop); a waiter whose client can go away wakes every
 * {@link #CLIENT_CHECK_MS} to ask and leaves the queue when it has.
 *
 * <p>This class is the entry point and holds the public types; each connection's {@link Gate}
 * decides, and {@link GateRegistry} keeps the gates and the tombstones of deleted connections.
 */
public final class ConnectionGates implements Mechanism {

    /** How often a waiting request asks whether its client is still there. */
    public static final long CLIENT_CHECK_MS = 100;

    /** Why a request did not start. */
    public enum Refusal {
        /** RQ-5: the protected connection's queue already holds {@code maxQueueDepth} requests. */
        RATE_LIMIT_QUEUE_FULL,
        /** RQ-1 / RQ-4: queued past {@code maxWaitMs}, or paused beyond it. */
        RATE_LIMIT_QUEUE_TIMEOUT,
        /** QC-2: a cap's queue (connection not protected by the request queue) is full. */
        SEMAPHORE_QUEUE_FULL,
        /** QC-2: waited past {@code maxWaitMs} for a cap's permit. */
        SEMAPHORE_TIMEOUT,
        /** The client disconnected while its request waited. */
        CLIENT_DISCONNECTED
    }

    /**
     * What limits one request on one connection.
     *
     * @param connectionCap the connection's concurrency cap (QC-1), 0 for none
     * @param modelCap the cap of the request's upstream model on this connection (QC-2), 0 for none
     * @param protectedQueue whether the request queue protects the connection (RQ-7, RQ-8): names the refusal codes
     * @param maxWaitMs the longest the request may wait to start (RQ-1, RQ-3)
     * @param maxQueueDepth waiting requests beyond which a new one is refused at once, 0 = unlimited (RQ-5)
     * @param minSpacingMs configured pacing (RQ-10): the least time between two starts on the
     *        connection, 0 = none
     */
    public record Limits(int connectionCap, int modelCap, boolean protectedQueue, long maxWaitMs, int maxQueueDepth, long minSpacingMs) {

        /** Checks the bounds. */
        public Limits {
            if (connectionCap < 0 || modelCap < 0 || maxWaitMs < 1 || maxQueueDepth < 0 || minSpacingMs < 0) {
                throw new IllegalArgumentException("bad limits: " + connectionCap + ", " + modelCap + ", " + maxWaitMs + ", " + maxQueueDepth
                        + ", " + minSpacingMs);
            }
        }

        /**
         * Limits without configured pacing.
         *
         * @param connectionCap the connection cap, 0 for none
         * @param modelCap the model cap, 0 for none
         * @param protectedQueue whether the request queue protects the connection
         * @param maxWaitMs the longest wait to start
         * @param maxQueueDepth the queue bound, 0 = unlimited
         */
        public Limits(int connectionCap, int modelCap, boolean protectedQueue, long maxWaitMs, int maxQueueDepth) {
            this(connectionCap, modelCap, protectedQueue, maxWaitMs, maxQueueDepth, 0);
        }

        boolean gated() {
            return connectionCap > 0 || modelCap > 0 || minSpacingMs > 0;
        }
    }

    /**
     * Pacing learned from an upstream's rate-limit headers (RQ-10): until {@code untilMs}, starts
     * are at least {@code spacingMs} apart.
     *
     * @param spacingMs the least time between two starts
     * @param untilMs when the announced window resets, epoch ms
     * @param limit the announced request limit
     * @param remaining the announced requests left
     */
    public record Pacing(long spacingMs, long untilMs, long limit, long remaining) {
    }

    /** The outcome of {@link #enter}. */
    public sealed interface Entry permits Permit, Refused {
    }

    /**
     * A request that may start; {@link #release()} when its attempt ends (a stream: when it ends).
     * Releasing twice is harmless.
     */
    public static final class Permit implements Entry {
        private static final Runnable NOTHING = () -> { };
        private static final Permit NONE = new Permit(null, null, false, 0);
        private final Gate gate;
        /** The upstream model the permit is for. */
        final String model;
        /** Whether the permit counts on its connection's cap (not a QC-3 fail-open). */
        final boolean countsConnection;
        /** When the local turn was taken (the start its gate's pacing recorded). */
        final long takenAt;
        private final AtomicBoolean released = new AtomicBoolean();
        /** What else the request holds with this permit, given back with it ({@link Turn#alsoHolds}). */
        volatile Runnable also = NOTHING;

        Permit(Gate gate, String model, boolean countsConnection, long takenAt) {
            this.gate = gate;
            this.model = model;
            this.countsConnection = countsConnection;
            this.takenAt = takenAt;
        }

        /**
         * A permit that holds nothing (QC-3's fail-open: the request goes ahead without a turn).
         *
         * @return the empty permit
         */
        public static Permit none() {
            return NONE;
        }

        /** Returns the permits this request holds. */
        public void release() {
            if (gate != null && released.compareAndSet(false, true)) {
                also.run();
                gate.release(model, countsConnection);
            }
        }
    }

    /**
     * A request that did not start; nothing was sent upstream.
     *
     * @param refusal why
     * @param retryAfterMs when trying again may succeed, ms (a pause's remaining time, else 0)
     */
    public record Refused(Refusal refusal, long retryAfterMs) implements Entry {

        /**
         * RQ-5's refusal for a full queue, named for the connection's kind of queue.
         *
         * @param limits the request's limits
         * @param retryAfterMs when trying again may succeed, ms
         * @return the refusal
         */
        public static Refused queueFull(Limits limits, long retryAfterMs) {
            return new Refused(limits.protectedQueue() ? Refusal.RATE_LIMIT_QUEUE_FULL : Refusal.SEMAPHORE_QUEUE_FULL, retryAfterMs);
        }
    }

    private final InstantSource clock;
    private final GateRegistry gates;
    private final java.util.function.LongConsumer waits;
    private final TurnSteps steps;

    /**
     * Creates the gates, reporting queue waits, whose turns go through {@code steps} besides the
     * gate (shared mode's decorator, {@code gate.shared.SharedTurns}; {@link TurnSteps#NONE}: nothing).
     *
     * @param clock decides deadlines and pauses
     * @param waits told how long each {@link #enter} took, ns (the queue wait metric); {@code n -> { }} for none
     * @param steps what a granted turn still goes through, and the claim a request makes before it waits
     */
    public ConnectionGates(InstantSource clock, java.util.function.LongConsumer waits, TurnSteps steps) {
        this.clock = clock;
        this.gates = new GateRegistry(clock);
        this.waits = waits;
        this.steps = java.util.Objects.requireNonNull(steps, "steps is null");
    }

    /**
     * RQ-5 admission, a pure function: may one more request join a queue that holds {@code queued}?
     *
     * @param queued requests waiting now
     * @param maxQueueDepth the bound, 0 = unlimited
     * @return whether it may join
     */
    public static boolean admits(int queued, int maxQueueDepth) {
        return maxQueueDepth <= 0 || queued < maxQueueDepth;
    }

    /**
     * Enters the gate of a connection: starts at once, waits, or is refused.
     *
     * @param connectionId the connection
     * @param model the upstream model the request is for
     * @param limits what limits it
     * @param stillWanted asked while waiting; false once the client has gone (null: never asked)
     * @return a permit to release when the attempt ends, or the refusal
     * @throws InterruptedException when the waiting thread is interrupted (nothing is held)
     */
    public Entry enter(String connectionId, String model, Limits limits, BooleanSupplier stillWanted) throws InterruptedException {
        Gate gate = gateToPass(connectionId, limits);
        if (gate == null) {
            return Permit.NONE;
        }
        long t0 = System.nanoTime();
        long deadline = clock.millis() + limits.maxWaitMs();
        // the request's claim to wait, made only if it waits anywhere below
        WaitClaim claim = steps.claim(connectionId, limits);
        try {
            Entry entry = gate.enter(model, limits, stillWanted, claim);
            return entry instanceof Permit p ? steps.granted(new Turn(gate, p, connectionId, limits), deadline, stillWanted, claim) : entry;
        } finally {
            claim.giveUp();
            waits.accept(System.nanoTime() - t0);
        }
    }

    /**
     * Enters the gate of a connection only if the request can start at once (nobody waiting, every
     * limit free): for passing over a full connection while another may have room.
     *
     * @param connectionId the connection
     * @param model the upstream model the request is for
     * @param limits what limits it
     * @return a permit, or null when the request would have to wait (nothing is taken)
     */
    public Permit tryEnter(String connectionId, String model, Limits limits) {
        Gate gate = gateToPass(connectionId, limits);
        if (gate == null) {
            return Permit.NONE;
        }
        Permit p = gate.tryEnter(model, limits);
        return p == null ? null : steps.grantedAtOnce(new Turn(gate, p, connectionId, limits));
    }

    /**
     * The gate a request must pass, or null for the lock-free fast path (RQ-10): nothing limits the
     * request and the connection has no pause, pacing or queue.
     */
    private Gate gateToPass(String connectionId, Limits limits) {
        Gate existing = gates.find(connectionId);
        if (!limits.gated() && (existing == null || existing.idle(clock.millis()))) {
            return null;
        }
        return existing != null ? existing : gates.of(connectionId);
    }

    /**
     * QC-3 fail-open for a quota-share request the connection's cap (or its queue) refused: a
     * permit for the model's share only, when no model cap, pause or pacing holds the request.
     *
     * @param connectionId the connection
     * @param model the upstream model
     * @param limits the request's limits
     * @return the permit, or null when something besides the connection's cap holds the request
     */
    public Permit failOpen(String connectionId, String model, Limits limits) {
        Gate gate = gates.of(connectionId);
        Permit p = gate.failOpen(model, limits);
        return p == null ? null : steps.grantedAtOnce(new Turn(gate, p, connectionId, limits));
    }

    /**
     * RQ-4 pacing: nothing starts on this connection before {@code untilMs}; waiters whose queue
     * time ends before that are refused at once.
     *
     * @param connectionId the connection
     * @param untilMs epoch ms
     */
    public void pause(String connectionId, long untilMs) {
        gates.of(connectionId).pause(null, untilMs);
    }

    /**
     * RQ-4 pacing of one model where the upstream's limits are per model: nothing for
     * {@code model} starts on this connection before {@code untilMs}; other models are not held.
     *
     * @param connectionId the connection
     * @param model the upstream model
     * @param untilMs epoch ms
     */
    public void pause(String connectionId, String model, long untilMs) {
        gates.of(connectionId).pause(model, untilMs);
    }

    /**
     * RQ-10: paces a protected connection evenly until its announced reset.
     *
     * @param connectionId the connection
     * @param pacing the learned pacing; replaces the previous one
     */
    public void learn(String connectionId, Pacing pacing) {
        gates.of(connectionId).learn(pacing);
    }

    /**
     * The learned pacing in force on a connection (RQ-10, shown in health views).
     *
     * @param connectionId the connection
     * @return the pacing, or null when none is in force
     */
    public Pacing learned(String connectionId) {
        Gate g = gates.find(connectionId);
        Pacing p = g == null ? null : g.learned();
        return p != null && p.untilMs() > clock.millis() ? p : null;
    }

    /**
     * Every connection with learned pacing in force.
     *
     * @return connection id → pacing
     */
    public Map<String, Pacing> learnedAll() {
        Map<String, Pacing> out = new TreeMap<>();
        gates.forEach((id, g) -> {
            Pacing p = learned(id);
            if (p != null) {
                out.put(id, p);
            }
        });
        return out;
    }

    /**
     * The pause in force on a connection.
     *
     * @param connectionId the connection
     * @return epoch ms until which it is paused, or 0
     */
    public long pausedUntil(String connectionId) {
        Gate g = gates.find(connectionId);
        long until = g == null ? 0 : g.pausedUntil();
        return until > clock.millis() ? until : 0;
    }

    /**
     * The per-model pauses in force on a connection (providers whose limits are per model, RQ-4).
     *
     * @param connectionId the connection
     * @return upstream model → epoch ms until which it is paused; empty when none
     */
    public Map<String, Long> pausedModels(String connectionId) {
        Gate g = gates.find(connectionId);
        return g == null ? Map.of() : g.pausedModels(clock.millis());
    }

    /**
     * A snapshot of one connection's gate, for health views and tests.
     *
     * @param running requests holding a permit
     * @param queued requests waiting
     * @param runningByModel permits held per upstream model
     */
    public record Snapshot(int running, int queued, Map<String, Integer> runningByModel) {
    }

    /**
     * The state of a connection's gate.
     *
     * @param connectionId the connection
     * @return the snapshot (zeros when the connection never had a gate)
     */
    public Snapshot snapshot(String connectionId) {
        Gate g = gates.find(connectionId);
        return g == null ? new Snapshot(0, 0, Map.of()) : g.snapshot();
    }

    /**
     * Drops the gate of a deleted connection for good. Requests holding or waiting for its permits
     * keep their own reference and finish normally; later ones get a gate that is not kept.
     *
     * @param connectionId the connection
     */
    public void forget(String connectionId) {
        gates.forget(connectionId);
    }

    /** Wakes every waiter to look at the clock again (tests that move a test clock). */
    void recheck() {
        gates.forEach((id, g) -> g.signal());
    }

    /**
     * Another instance paused a connection's queue or one model's share of it (RQ-4), learned its
     * pacing or saw it end (RQ-10): this instance's gate does the same, for the time left.
     */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        switch (event) {
            case ClusterEvent.Paused p when p.remainingMs() > 0 -> {
                if (p.model() == null) {
                    pause(p.connectionId(), now + p.remainingMs());
                } else {
                    pause(p.connectionId(), p.model(), now + p.remainingMs());
                }
            }
            case ClusterEvent.PacingLearned l when l.remainingMs() > 0 ->
                    learn(l.connectionId(), new Pacing(l.spacingMs(), now + l.remainingMs(), l.limit(), l.remaining()));
            case ClusterEvent.PacingEnded e -> {
                if (learned(e.connectionId()) != null) {
                    learn(e.connectionId(), null);
                }
            }
            default -> {
            }
        }
    }
}
