package dev.sluice.runtime.resilience;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
 */
public final class ConnectionGates {

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
        private static final Permit NONE = new Permit(null, null, false);
        private final Gate gate;
        private final String model;
        private final boolean countsConnection;
        private final AtomicBoolean released = new AtomicBoolean();

        private Permit(Gate gate, String model, boolean countsConnection) {
            this.gate = gate;
            this.model = model;
            this.countsConnection = countsConnection;
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
    }

    private final InstantSource clock;
    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** Deleted connections (ids are never reused): a few bytes each. */
    private final java.util.Set<String> forgotten = ConcurrentHashMap.newKeySet();

    /**
     * Creates the gates.
     *
     * @param clock decides deadlines and pauses
     */
    public ConnectionGates(InstantSource clock) {
        this.clock = clock;
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
        return gate == null ? Permit.NONE : gate.enter(model, limits, stillWanted);
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
        return gate == null ? Permit.NONE : gate.tryEnter(model, limits);
    }

    /**
     * The gate a request must pass, or null for the lock-free fast path (RQ-10): nothing limits the
     * request and the connection has no pause, pacing or queue.
     */
    private Gate gateToPass(String connectionId, Limits limits) {
        Gate existing = gates.get(connectionId);
        if (!limits.gated() && (existing == null || existing.idle(clock.millis()))) {
            return null;
        }
        return existing != null ? existing : gateOf(connectionId);
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
        return gateOf(connectionId).failOpen(model, limits);
    }

    /**
     * RQ-4 pacing: nothing starts on this connection before {@code untilMs}; waiters whose queue
     * time ends before that are refused at once.
     *
     * @param connectionId the connection
     * @param untilMs epoch ms
     */
    public void pause(String connectionId, long untilMs) {
        gateOf(connectionId).pause(null, untilMs);
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
        gateOf(connectionId).pause(model, untilMs);
    }

    /**
     * RQ-10: paces a protected connection evenly until its announced reset.
     *
     * @param connectionId the connection
     * @param pacing the learned pacing; replaces the previous one
     */
    public void learn(String connectionId, Pacing pacing) {
        gateOf(connectionId).learned = pacing;
    }

    /**
     * The learned pacing in force on a connection (RQ-10, shown in health views).
     *
     * @param connectionId the connection
     * @return the pacing, or null when none is in force
     */
    public Pacing learned(String connectionId) {
        Gate g = gates.get(connectionId);
        Pacing p = g == null ? null : g.learned;
        return p != null && p.untilMs() > clock.millis() ? p : null;
    }

    /**
     * Every connection with learned pacing in force.
     *
     * @return connection id → pacing
     */
    public Map<String, Pacing> learnedAll() {
        Map<String, Pacing> out = new java.util.TreeMap<>();
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
        Gate g = gates.get(connectionId);
        long until = g == null ? 0 : g.pausedUntil;
        return until > clock.millis() ? until : 0;
    }

    /**
     * The per-model pauses in force on a connection (providers whose limits are per model, RQ-4).
     *
     * @param connectionId the connection
     * @return upstream model → epoch ms until which it is paused; empty when none
     */
    public Map<String, Long> pausedModels(String connectionId) {
        Gate g = gates.get(connectionId);
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
        Gate g = gates.get(connectionId);
        return g == null ? new Snapshot(0, 0, Map.of()) : g.snapshot();
    }

    /**
     * Drops the gate of a deleted connection. Requests holding or waiting for its permits keep
     * their own reference and finish normally.
     *
     * @param connectionId the connection
     */
    public void forget(String connectionId) {
        forgotten.add(connectionId);
        gates.remove(connectionId);
    }

    /**
     * The gate of a connection, made on first use — except for a deleted connection, whose
     * requests still in flight get a gate of their own that is not kept (so they cannot bring
     * the deleted connection's gate back for the life of the process).
     */
    private Gate gateOf(String connectionId) {
        Gate g = gates.get(connectionId);
        if (g != null) {
            return g;
        }
        return forgotten.contains(connectionId) ? new Gate() : gates.computeIfAbsent(connectionId, k -> new Gate());
    }

    /** Wakes every waiter to look at the clock again (tests that move a test clock). */
    void recheck() {
        gates.values().forEach(Gate::signal);
    }

    /** One connection's gate. */
    private final class Gate {
        private final ReentrantLock lock = new ReentrantLock();
        private final List<Waiter> waiters = new ArrayList<>();
        private final Map<String, Integer> runningByModel = new HashMap<>();
        private int running;
        private volatile int queued;
        private volatile long pausedUntil;
        /** Per-model pauses (model-scoped limits) and the latest of them, for the lock-free idle check. */
        private final Map<String, Long> modelPausedUntil = new HashMap<>();
        private volatile long anyModelPausedUntil;
        private volatile Pacing learned;
        private long lastStartAt = Long.MIN_VALUE / 2;

        /** Nothing to enforce for an ungated request: no pause, no learned pacing, nobody queued. */
        boolean idle(long now) {
            Pacing p = learned;
            return pausedUntil <= now && anyModelPausedUntil <= now && queued == 0 && (p == null || p.untilMs() <= now);
        }

        /** The pause that holds {@code model}: the connection's or the model's, whichever ends later. */
        private long pausedUntil(String model) {
            return anyModelPausedUntil == 0 ? pausedUntil : Math.max(pausedUntil, modelPausedUntil.getOrDefault(model, 0L));
        }

        /** The least spacing between starts now: configured or learned, whichever is longer. */
        private long spacing(Limits limits, long now) {
            Pacing p = learned;
            return Math.max(limits.minSpacingMs(), p != null && p.untilMs() > now ? p.spacingMs() : 0);
        }

        /** When pacing next lets a start happen (≤ now: now). */
        private long nextPacedStart(Limits limits, long now) {
            long spacing = spacing(limits, now);
            return spacing == 0 ? now : lastStartAt + spacing;
        }

        Entry enter(String model, Limits limits, BooleanSupplier stillWanted) throws InterruptedException {
            lock.lock();
            try {
                long now = clock.millis();
                // start at once when nothing stops this request and no waiter ahead could start now:
                // waiters held by their own model's cap do not hold back (nor fill the queue for) others
                if (mayStart(model, limits, now) && (waiters.isEmpty() || firstStartable(now) == null)) {
                    return take(model, limits, true);
                }
                if (!admits(waiters.size(), limits.maxQueueDepth())) {
                    return new Refused(limits.protectedQueue() ? Refusal.RATE_LIMIT_QUEUE_FULL : Refusal.SEMAPHORE_QUEUE_FULL,
                            Math.max(0, pausedUntil(model) - now));
                }
                long deadline = now + limits.maxWaitMs();
                long paused = pausedUntil(model);
                if (paused > deadline) {
                    // RQ-4: the pause outlasts this caller's queue time: refuse at once
                    return new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, paused - now);
                }
                Waiter w = new Waiter(model, limits, lock.newCondition());
                waiters.add(w);
                queued = waiters.size();
                try {
                    boolean look = true;
                    while (true) {
                        now = clock.millis();
                        if (look) {
                            w.signalled = false;
                        }
                        if (look && firstStartable(now) == w) {
                            waiters.remove(w);
                            queued = waiters.size();
                            Permit p = take(model, limits, true);
                            // the next in line may be able to start too (another model)
                            signalFirstStartable(now);
                            return p;
                        }
                        long heldUntil = pausedUntil(model);
                        if (heldUntil > deadline) {
                            // RQ-4: a pause that came while this request waited outlasts its queue time
                            return new Refused(Refusal.RATE_LIMIT_QUEUE_TIMEOUT, heldUntil - now);
                        }
                        if (now >= deadline) {
                            return new Refused(heldUntil > now || limits.protectedQueue() ? Refusal.RATE_LIMIT_QUEUE_TIMEOUT
                                    : Refusal.SEMAPHORE_TIMEOUT, Math.max(0, heldUntil - now));
                        }
                        if (stillWanted != null && !askedOutsideTheLock(stillWanted)) {
                            return new Refused(Refusal.CLIENT_DISCONNECTED, 0);
                        }
                        if (w.signalled) {
                            // told to look again while the lock was let go to ask the client
                            look = true;
                            continue;
                        }
                        // a timed wake is due at the deadline, the pause's end or the next paced start
                        long lookAt = deadline;
                        if (heldUntil > now) {
                            lookAt = Math.min(lookAt, heldUntil);
                        }
                        long paced = nextPacedStart(limits, now);
                        if (paced > now) {
                            lookAt = Math.min(lookAt, paced);
                        }
                        long waitMs = lookAt - now;
                        if (stillWanted != null) {
                            waitMs = Math.min(waitMs, CLIENT_CHECK_MS);
                        }
                        w.turn.await(Math.max(1, waitMs), TimeUnit.MILLISECONDS);
                        // look at the queue again when told to or once a timed reason to has come due
                        look = w.signalled || clock.millis() >= lookAt;
                    }
                } finally {
                    if (waiters.remove(w)) {
                        queued = waiters.size();
                        // leaving may let the next waiter be first
                        signalFirstStartable(clock.millis());
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        /** Asks whether the client is still there without holding the gate's lock meanwhile. */
        private boolean askedOutsideTheLock(BooleanSupplier stillWanted) {
            lock.unlock();
            try {
                return stillWanted.getAsBoolean();
            } finally {
                lock.lock();
            }
        }

        /** Wakes the one waiter that may start now, if any (each waiter has its own condition). */
        private void signalFirstStartable(long now) {
            Waiter first = firstStartable(now);
            if (first != null) {
                first.signalled = true;
                first.turn.signal();
            }
        }

        /** Wakes every waiter to look again (a pause or a test clock changed what they wait for). */
        private void signalEveryone() {
            for (Waiter w : waiters) {
                w.signalled = true;
                w.turn.signal();
            }
        }

        /**
         * QC-3 fail-open: a permit that holds the model's share but not the connection's, taken only
         * when nothing but the connection's cap (or its queue) holds the request.
         */
        Permit failOpen(String model, Limits limits) {
            lock.lock();
            try {
                long now = clock.millis();
                boolean onlyTheConnectionCap = pausedUntil(model) <= now && nextPacedStart(limits, now) <= now
                        && (limits.modelCap() == 0 || runningByModel.getOrDefault(model, 0) < limits.modelCap());
                return onlyTheConnectionCap ? take(model, limits, false) : null;
            } finally {
                lock.unlock();
            }
        }

        Permit tryEnter(String model, Limits limits) {
            lock.lock();
            try {
                return waiters.isEmpty() && mayStart(model, limits, clock.millis()) ? take(model, limits, true) : null;
            } finally {
                lock.unlock();
            }
        }

        private boolean mayStart(String model, Limits limits, long now) {
            return pausedUntil(model) <= now
                    && nextPacedStart(limits, now) <= now
                    && (limits.connectionCap() == 0 || running < limits.connectionCap())
                    && (limits.modelCap() == 0 || runningByModel.getOrDefault(model, 0) < limits.modelCap());
        }

        private Waiter firstStartable(long now) {
            for (Waiter w : waiters) {
                if (mayStart(w.model, w.limits, now)) {
                    return w;
                }
            }
            return null;
        }

        private Permit take(String model, Limits limits, boolean countsConnection) {
            lastStartAt = clock.millis();
            if (countsConnection) {
                running++;
            }
            runningByModel.merge(model, 1, Integer::sum);
            return new Permit(this, model, countsConnection);
        }

        void release(String model, boolean countsConnection) {
            lock.lock();
            try {
                if (countsConnection) {
                    running--;
                }
                runningByModel.computeIfPresent(model, (k, n) -> n == 1 ? null : n - 1);
                signalFirstStartable(clock.millis());
            } finally {
                lock.unlock();
            }
        }

        void pause(String model, long untilMs) {
            lock.lock();
            try {
                if (model == null) {
                    pausedUntil = Math.max(pausedUntil, untilMs);
                } else {
                    long now = clock.millis();
                    modelPausedUntil.values().removeIf(until -> until <= now);
                    modelPausedUntil.merge(model, untilMs, Math::max);
                    anyModelPausedUntil = Math.max(anyModelPausedUntil, untilMs);
                }
                // waiters whose queue time the pause outlasts are refused at once (RQ-4)
                signalEveryone();
            } finally {
                lock.unlock();
            }
        }

        void signal() {
            lock.lock();
            try {
                signalEveryone();
            } finally {
                lock.unlock();
            }
        }

        Map<String, Long> pausedModels(long now) {
            if (anyModelPausedUntil <= now) {
                return Map.of();
            }
            lock.lock();
            try {
                Map<String, Long> out = new java.util.TreeMap<>();
                modelPausedUntil.forEach((m, until) -> {
                    if (until > now) {
                        out.put(m, until);
                    }
                });
                return out;
            } finally {
                lock.unlock();
            }
        }

        Snapshot snapshot() {
            lock.lock();
            try {
                return new Snapshot(running, waiters.size(), Map.copyOf(runningByModel));
            } finally {
                lock.unlock();
            }
        }
    }

    /** A request waiting in a gate (identity matters: two waiters for the same model are two). */
    private static final class Waiter {
        final String model;
        final Limits limits;
        /** This waiter's own condition: a release wakes only the waiter that may start. */
        final Condition turn;
        /** Set (under the lock) by whoever wakes this waiter to look at the queue again. */
        boolean signalled;

        Waiter(String model, Limits limits, Condition turn) {
            this.model = model;
            this.limits = limits;
            this.turn = turn;
        }
    }
}
