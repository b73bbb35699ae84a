package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerStore.BreakerSnapshot;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The provider circuit breakers (SPEC §6), one per {@link BreakerKey} (provider and upstream host,
 * BO-4), persisted through a {@link BreakerStore} (CB-7).
 *
 * <p>There is no timer (CB-6): every call first applies the transitions that time alone makes
 * ({@code OPEN → HALF_OPEN} once the open period passed, a stale {@code DEGRADED → CLOSED}, the
 * release of a half-open probe that never reported, after {@link #probeLeaseMs}). Thresholds and
 * periods are read from the live settings on every call, for the class the caller names.
 *
 * <p>Each breaker is guarded by its own lock, held for the transition and its persistence, so
 * rows are written in the order the transitions happen. The common case (a {@code CLOSED}
 * breaker asked whether traffic may flow, or told of a success with nothing to forget) takes no
 * lock and writes nothing. Unknown keys are {@code CLOSED}; a breaker is created by its first
 * counted failure.
 *
 * <p>The half-open probe is held by one caller: {@link #admit} hands it an {@link Admission} token
 * that no other caller holds, and only that token releases the claim on a neutral outcome
 * ({@link #onNeutral(BreakerKey, Admission)}). A straggler (an attempt admitted while the breaker
 * was still {@code CLOSED} or {@code DEGRADED}, ending after it went {@code HALF_OPEN}) or an
 * earlier probe whose lease expired therefore cannot free the claim of the probe in flight.
 *
 * <p>Successes and counted failures are judged by state, not by caller: while {@code HALF_OPEN}
 * the first one reported decides, whoever reports it. A straggler's success closes the breaker and
 * its counted failure re-opens it, because either is a real upstream outcome seen after the open
 * period passed, as good as the probe's own (BO-3); the probe's later report then finds the
 * breaker in its new state and is judged there.
 */
public final class CircuitBreakers {

    /** Consecutive successes that take a {@code DEGRADED} breaker back to {@code CLOSED} (CB-5). */
    public static final int DEGRADED_EXIT_SUCCESSES = 3;

    /** Failures of one connection on one breaker within this many ms of its last counted one count once (CB-4). */
    public static final long DEDUPE_WINDOW_MS = FailureDedupe.WINDOW_MS;

    /** Bound of the dedupe memory (connection × breaker entries); stale entries are dropped first. */
    public static final int DEDUPE_MAX_ENTRIES = FailureDedupe.MAX_ENTRIES;

    /** Registry cap: when reached, idle {@code CLOSED} breakers with no failures are evicted first. */
    public static final int MAX_BREAKERS = 500;

    /**
     * Least time a claimed half-open probe keeps its claim when it never reports (CB-1): longer
     * than the slowest non-streaming attempt (the upstream headers timeout is 110 s by default),
     * so a slow probe is not joined by a second one. The lease is the larger of this and the
     * profile's {@code resetTimeoutMs} ({@link #probeLeaseMs}).
     */
    public static final long PROBE_LEASE_MS = BreakerPeriods.PROBE_LEASE_MS;

    /** The class whose profile applies to a breaker no caller has named yet (e.g. restored without one). */
    public static final ProviderClass DEFAULT_CLASS = ProviderClass.APIKEY;

    private static final System.Logger LOG = System.getLogger(CircuitBreakers.class.getName());

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final BreakerPersistence store;
    private final ConcurrentHashMap<BreakerKey, Cell> cells = new ConcurrentHashMap<>();
    /** Guards creation, eviction and reset of cells; taken before a cell lock, never after. */
    private final ReentrantLock structure = new ReentrantLock();
    private final FailureDedupe dedupe = new FailureDedupe();

    /**
     * Creates the registry and restores every persisted breaker (CB-7); a restored
     * {@code HALF_OPEN} breaker has no probe in flight.
     *
     * @param clock the clock
     * @param settings the live resilience settings, read on every call
     * @param store the persistence
     */
    public CircuitBreakers(InstantSource clock, Supplier<ResilienceSettings> settings, BreakerStore store) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.store = new BreakerPersistence(store);
        for (BreakerSnapshot s : this.store.restore()) {
            cells.put(s.key(), new Cell(s));
        }
    }

    /**
     * The open period of a breaker (CB-4): {@code cooldownByKind[kind]} when the profile has one,
     * else {@code resetTimeoutMs} while {@code openCycles ≤ backoffEscalationCount}, then
     * {@code min(resetTimeoutMs × 2^(openCycles − backoffEscalationCount), resetTimeoutMs ×
     * maxBackoffMultiplier)}.
     *
     * @param p the profile
     * @param openCycles completed open cycles (0 on the first open)
     * @param kind the last failure kind, or null
     * @return the period in ms
     */
    public static long openPeriodMs(BreakerProfile p, int openCycles, String kind) {
        return BreakerPeriods.openPeriodMs(p, openCycles, kind);
    }

    /**
     * How long a {@code DEGRADED} breaker waits without a new failure before it is {@code CLOSED}
     * again (CB-5): the longest open period for the last failure kind, i.e.
     * {@code (cooldownByKind[kind] else resetTimeoutMs) × maxBackoffMultiplier}, at least one period.
     *
     * @param p the profile
     * @param kind the last failure kind, or null
     * @return the period in ms
     */
    public static long degradedExpiryMs(BreakerProfile p, String kind) {
        return BreakerPeriods.degradedExpiryMs(p, kind);
    }

    /**
     * How long a claimed half-open probe that never reports keeps its claim (CB-1): the larger of
     * {@link #PROBE_LEASE_MS} and {@code resetTimeoutMs}.
     *
     * @param p the profile
     * @return the lease in ms
     */
    public static long probeLeaseMs(BreakerProfile p) {
        return BreakerPeriods.probeLeaseMs(p);
    }

    /**
     * May this attempt go upstream? {@code CLOSED} and {@code DEGRADED}: {@link Admission#ADMITTED}.
     * {@code OPEN}: {@link Admission#REFUSED}. {@code HALF_OPEN}: a fresh probe token (see
     * {@link Admission#probe()}) for exactly one caller, until an outcome is reported or
     * {@link #probeLeaseMs} passed since it was claimed (a safety lease for probes that never
     * report); {@link Admission#REFUSED} for everyone else.
     *
     * <p>The caller keeps the answer for the attempt and hands it to
     * {@link #onNeutral(BreakerKey, Admission)} when the attempt ends without evidence.
     *
     * @param key the breaker
     * @param cls the connection's provider class (selects the profile)
     * @return the admission; never null
     */
    public Admission admit(BreakerKey key, ProviderClass cls) {
        return decide(key, cls, true);
    }

    /**
     * The same answer as {@link #admit} without claiming the half-open probe: false when
     * {@code OPEN}, or {@code HALF_OPEN} with a probe in flight.
     *
     * @param key the breaker
     * @param cls the connection's provider class
     * @return true when an attempt could proceed now
     */
    public boolean canExecute(BreakerKey key, ProviderClass cls) {
        return decide(key, cls, false).admitted();
    }

    /** With {@code claim} false a free half-open probe is answered {@link Admission#ADMITTED}, unclaimed. */
    private Admission decide(BreakerKey key, ProviderClass cls, boolean claim) {
        requireNonNull(cls, "cls is null");
        Cell cell = cells.get(key);
        if (cell == null) {
            return Admission.ADMITTED;
        }
        if (cell.cls != cls) {
            cell.cls = cls;
        }
        if (cell.snap.state() == BreakerState.CLOSED) {
            return Admission.ADMITTED;
        }
        Admission answer = locked(key, null, c -> {
            long now = clock.millis();
            normalize(c, profile(cls), now);
            return switch (c.snap.state()) {
                case CLOSED, DEGRADED -> Admission.ADMITTED;
                case OPEN -> Admission.REFUSED;
                case HALF_OPEN -> {
                    if (c.probe != null) {
                        yield Admission.REFUSED;
                    }
                    if (!claim) {
                        yield Admission.ADMITTED;
                    }
                    Admission probe = new Admission(true);
                    c.probe = probe;
                    c.probeClaimedAt = now;
                    LOG.log(Level.DEBUG, () -> "breaker " + key + " half-open probe claimed");
                    yield probe;
                }
            };
        });
        return answer == null ? Admission.ADMITTED : answer;
    }

    /**
     * An attempt succeeded upstream. {@code CLOSED}/{@code DEGRADED}: the failure count drops by
     * one (gradual recovery); {@value #DEGRADED_EXIT_SUCCESSES} successes in a row leave
     * {@code DEGRADED}. {@code HALF_OPEN}: the probe succeeded, {@code CLOSED} with every counter
     * reset. {@code OPEN}: ignored.
     *
     * @param key the breaker
     * @param cls the connection's provider class
     * @param connectionId the connection that succeeded (clears its dedupe memory), or null
     */
    public void onSuccess(BreakerKey key, ProviderClass cls, String connectionId) {
        requireNonNull(cls, "cls is null");
        Cell cell = cells.get(key);
        if (cell == null) {
            // No cell, no dedupe entry in its window: entries are made with the cell, and forgotten with it.
            return;
        }
        if (connectionId != null && cell.dedupeUntil > clock.millis()) {
            // A failure after a success is new evidence, not a repeat of the earlier one.
            dedupe.forget(key, connectionId);
        }
        if (cell.cls != cls) {
            cell.cls = cls;
        }
        BreakerSnapshot seen = cell.snap;
        if (seen.state() == BreakerState.CLOSED && seen.failureCount() == 0) {
            return;
        }
        locked(key, null, c -> {
            long now = clock.millis();
            BreakerProfile p = profile(cls);
            normalize(c, p, now);
            BreakerSnapshot s = c.snap;
            switch (s.state()) {
                case OPEN -> { }
                case HALF_OPEN -> move(c, new BreakerSnapshot(key, cls, BreakerState.CLOSED, 0, 0, null,
                        s.lastFailureAt(), s.lastFailureKind(), 0, now), "half-open probe succeeded");
                case CLOSED -> {
                    if (s.failureCount() > 0) {
                        move(c, counts(s, cls, s.failureCount() - 1, 0, now), null);
                    }
                }
                case DEGRADED -> {
                    int count = Math.max(0, s.failureCount() - 1);
                    int streak = s.consecutiveSuccesses() + 1;
                    if (streak >= DEGRADED_EXIT_SUCCESSES) {
                        // CLOSED means below the degradation threshold: the next failure alone must not degrade again.
                        int kept = Math.min(count, Math.max(0, p.degradationThreshold() - 1));
                        move(c, new BreakerSnapshot(key, cls, BreakerState.CLOSED, kept, s.openCycles(), null,
                                s.lastFailureAt(), s.lastFailureKind(), 0, now),
                                streak + " consecutive successes");
                    } else {
                        move(c, counts(s, cls, count, streak, now), null);
                    }
                }
            }
            return null;
        });
    }

    /**
     * An attempt failed at the provider level (only for verdicts whose
     * {@link Verdict#countsForBreaker()} is true, CB-3). {@code CLOSED}/{@code DEGRADED}: counted
     * unless the same connection's last counted failure on this breaker is under
     * {@link #DEDUPE_WINDOW_MS} old; at {@code degradationThreshold} the breaker degrades, at
     * {@code failureThreshold} it opens. {@code HALF_OPEN}: the probe failed, open again with one
     * more open cycle (BO-3). {@code OPEN}: ignored, so the window is not extended.
     *
     * @param key the breaker
     * @param cls the connection's provider class
     * @param connectionId the failing connection (for dedupe), or null
     * @param kind the failure kind, a {@code FailureReason} wire name (e.g. {@code server_error})
     */
    public void onFailure(BreakerKey key, ProviderClass cls, String connectionId, String kind) {
        requireNonNull(cls, "cls is null");
        locked(key, cls, c -> {
            c.cls = cls;
            long now = clock.millis();
            BreakerProfile p = profile(cls);
            normalize(c, p, now);
            BreakerSnapshot s = c.snap;
            switch (s.state()) {
                case OPEN -> { }
                case HALF_OPEN -> {
                    remember(c, key, connectionId, now);
                    move(c, new BreakerSnapshot(key, cls, BreakerState.OPEN, s.failureCount() + 1, s.openCycles() + 1,
                            now, now, kind, 0, now), "half-open probe failed (" + kind + ")");
                }
                case CLOSED, DEGRADED -> {
                    if (dedupe.isRepeat(key, connectionId, now)) {
                        return null;
                    }
                    remember(c, key, connectionId, now);
                    int count = s.failureCount() + 1;
                    if (count >= p.failureThreshold()) {
                        move(c, new BreakerSnapshot(key, cls, BreakerState.OPEN, count, 0, now, now, kind, 0, now),
                                count + " failures (" + kind + ")");
                    } else if (count >= p.degradationThreshold()) {
                        move(c, new BreakerSnapshot(key, cls, BreakerState.DEGRADED, count, s.openCycles(), null, now,
                                kind, 0, now), count + " failures (" + kind + ")");
                    } else {
                        move(c, new BreakerSnapshot(key, cls, s.state(), count, s.openCycles(), null, now, kind, 0, now),
                                null);
                    }
                }
            }
            return null;
        });
    }

    /**
     * The attempt ended without evidence either way (a 429 or 401, a request-scoped failure, a
     * client abort). When {@code admission} is the half-open probe token that still holds the
     * claim, the claim is released so another caller may probe; otherwise (an ordinary
     * admission, a straggler, a probe whose lease expired and whose claim was given to a newer
     * probe, a probe whose breaker has since changed state) nothing changes. Nothing else ever
     * changes: no count, no state, no row.
     *
     * @param key the breaker
     * @param admission what {@link #admit} answered for this attempt
     */
    public void onNeutral(BreakerKey key, Admission admission) {
        requireNonNull(admission, "admission is null");
        if (!admission.probe() || cells.get(key) == null) {
            return;
        }
        locked(key, null, c -> {
            if (c.probe == admission) {
                releaseProbe(c, "probe ended without evidence");
            }
            return null;
        });
    }

    /**
     * A connection test on this provider host succeeded: a {@code DEGRADED} breaker is
     * {@code CLOSED} again with no failures (CB-5). Other states are unchanged (an {@code OPEN}
     * breaker still waits for its probe).
     *
     * @param key the breaker
     */
    public void recordConnectionTestSuccess(BreakerKey key) {
        Cell cell = cells.get(key);
        if (cell == null || cell.snap.state() != BreakerState.DEGRADED) {
            return;
        }
        locked(key, null, c -> {
            BreakerSnapshot s = c.snap;
            if (s.state() == BreakerState.DEGRADED) {
                move(c, new BreakerSnapshot(key, c.cls, BreakerState.CLOSED, 0, s.openCycles(), null, s.lastFailureAt(),
                        s.lastFailureKind(), 0, clock.millis()), "connection test succeeded");
            }
            return null;
        });
    }

    /**
     * The breaker now, after lazy recovery (CB-6).
     *
     * @param key the breaker
     * @param cls the provider class whose profile applies
     * @return its view ({@code CLOSED} with no history for an unknown key)
     */
    public BreakerView view(BreakerKey key, ProviderClass cls) {
        requireNonNull(cls, "cls is null");
        BreakerView v = locked(key, null, c -> {
            c.cls = cls;
            return viewOf(c, profile(cls), clock.millis());
        });
        return v != null ? v : new BreakerView(key, BreakerState.CLOSED, 0, null, 0, 0, null);
    }

    /**
     * Every known breaker, after lazy recovery, ordered by key; each uses the profile of the class
     * its callers last named ({@link #DEFAULT_CLASS} when none has).
     *
     * @return the views
     */
    public List<BreakerView> views() {
        List<BreakerView> out = new ArrayList<>();
        for (BreakerKey key : cells.keySet()) {
            BreakerView v = locked(key, null, c -> viewOf(c, profile(c.cls), clock.millis()));
            if (v != null) {
                out.add(v);
            }
        }
        out.sort(Comparator.comparing(v -> v.key().toString()));
        return out;
    }

    /**
     * Milliseconds until an {@code OPEN} breaker lets a probe through; 0 in every other state.
     *
     * @param key the breaker
     * @param cls the provider class whose profile applies
     * @return the wait in ms
     */
    public long retryAfterMs(BreakerKey key, ProviderClass cls) {
        return view(key, cls).retryAfterMs();
    }

    /**
     * Forgets every breaker (they are {@code CLOSED} with no history) and deletes their rows.
     *
     * @return how many breakers were reset
     */
    public int reset() {
        structure.lock();
        try {
            int n = 0;
            for (Map.Entry<BreakerKey, Cell> e : cells.entrySet()) {
                Cell c = e.getValue();
                c.lock.lock();
                try {
                    c.removed = true;
                    cells.remove(e.getKey(), c);
                    n++;
                } finally {
                    c.lock.unlock();
                }
            }
            dedupe.clear();
            store.deleteAll();
            LOG.log(Level.INFO, "reset " + n + " provider breaker(s)");
            return n;
        } finally {
            structure.unlock();
        }
    }

    /**
     * Forgets every breaker of one provider, on all its hosts, and deletes their rows.
     *
     * @param provider the provider id
     * @return how many breakers were reset
     */
    public int reset(String provider) {
        requireNonNull(provider, "provider is null");
        structure.lock();
        try {
            int n = 0;
            for (Map.Entry<BreakerKey, Cell> e : cells.entrySet()) {
                if (e.getKey().provider().equals(provider)) {
                    remove(e.getKey(), e.getValue());
                    n++;
                }
            }
            dedupe.forgetProvider(provider);
            LOG.log(Level.INFO, "reset " + n + " breaker(s) of provider " + provider);
            return n;
        } finally {
            structure.unlock();
        }
    }

    /** @return breakers held in memory (for tests of the registry cap) */
    int size() {
        return cells.size();
    }

    /** @return entries of the dedupe memory (for tests of its bound) */
    int dedupeEntries() {
        return dedupe.size();
    }

    // --- internals ---------------------------------------------------------------------------

    private BreakerProfile profile(ProviderClass cls) {
        return settings.get().circuitBreaker().forClass(cls == null ? DEFAULT_CLASS : cls);
    }

    /**
     * Runs {@code op} under the cell's lock, retrying when the cell was evicted or reset meanwhile.
     * With {@code createAs} null an unknown key yields null; otherwise the cell is created.
     */
    private <T> T locked(BreakerKey key, ProviderClass createAs, Function<Cell, T> op) {
        requireNonNull(key, "key is null");
        while (true) {
            Cell c = cells.get(key);
            if (c == null) {
                if (createAs == null) {
                    return null;
                }
                c = create(key, createAs);
            }
            c.lock.lock();
            try {
                if (!c.removed) {
                    return op.apply(c);
                }
            } finally {
                c.lock.unlock();
            }
        }
    }

    private Cell create(BreakerKey key, ProviderClass cls) {
        structure.lock();
        try {
            Cell existing = cells.get(key);
            if (existing != null) {
                return existing;
            }
            if (cells.size() >= MAX_BREAKERS) {
                evictIdle();
            }
            Cell c = new Cell(BreakerSnapshot.pristine(key, cls, clock.millis()));
            cells.put(key, c);
            return c;
        } finally {
            structure.unlock();
        }
    }

    /** Evicts idle CLOSED breakers with no failures, least recently changed first, until below the cap. */
    private void evictIdle() {
        List<Map.Entry<BreakerKey, Cell>> idle = new ArrayList<>();
        for (Map.Entry<BreakerKey, Cell> e : cells.entrySet()) {
            if (isIdle(e.getValue().snap)) {
                idle.add(e);
            }
        }
        idle.sort(Comparator.comparingLong(e -> e.getValue().snap.updatedAt()));
        for (Map.Entry<BreakerKey, Cell> e : idle) {
            if (cells.size() < MAX_BREAKERS) {
                return;
            }
            Cell c = e.getValue();
            if (c.lock.tryLock()) {
                try {
                    if (!c.removed && isIdle(c.snap)) {
                        c.removed = true;
                        cells.remove(e.getKey(), c);
                        store.delete(e.getKey());
                        forgetDedupe(e.getKey(), c);
                    }
                } finally {
                    c.lock.unlock();
                }
            }
        }
        // Nothing idle left: the cap is exceeded rather than forgetting a breaker that holds evidence.
    }

    /**
     * Drops an evicted breaker's dedupe entries still in their window, so that a key without a
     * cell never has one (what lets {@link #onSuccess} skip the map for such keys).
     */
    private void forgetDedupe(BreakerKey key, Cell c) {
        if (c.dedupeUntil > clock.millis()) {
            dedupe.forgetBreaker(key);
        }
    }

    private static boolean isIdle(BreakerSnapshot s) {
        return s.state() == BreakerState.CLOSED && s.failureCount() == 0;
    }

    /** Removes one cell (caller holds {@code structure}). */
    private void remove(BreakerKey key, Cell c) {
        c.lock.lock();
        try {
            c.removed = true;
            cells.remove(key, c);
            store.delete(key);
        } finally {
            c.lock.unlock();
        }
    }

    /** Applies the transitions that time alone makes (CB-6); caller holds the cell's lock. */
    private void normalize(Cell c, BreakerProfile p, long now) {
        BreakerSnapshot s = c.snap;
        switch (s.state()) {
            case OPEN -> {
                if (s.openedAt() == null || now - s.openedAt() >= openPeriodMs(p, s.openCycles(), s.lastFailureKind())) {
                    c.probe = null;
                    move(c, new BreakerSnapshot(s.key(), c.cls, BreakerState.HALF_OPEN, s.failureCount(), s.openCycles(),
                            s.openedAt(), s.lastFailureAt(), s.lastFailureKind(), 0, now), "open period passed");
                }
            }
            case DEGRADED -> {
                if (s.lastFailureAt() == null || now - s.lastFailureAt() >= degradedExpiryMs(p, s.lastFailureKind())) {
                    move(c, new BreakerSnapshot(s.key(), c.cls, BreakerState.CLOSED, 0, s.openCycles(), null,
                            s.lastFailureAt(), s.lastFailureKind(), 0, now), "no failure for the longest open period");
                }
            }
            case HALF_OPEN -> {
                if (c.probe != null && now - c.probeClaimedAt >= probeLeaseMs(p)) {
                    releaseProbe(c, "probe lease expired");
                }
            }
            case CLOSED -> { }
        }
    }

    private BreakerView viewOf(Cell c, BreakerProfile p, long now) {
        normalize(c, p, now);
        BreakerSnapshot s = c.snap;
        long retryAfter = 0;
        if (s.state() == BreakerState.OPEN) {
            retryAfter = Math.max(0, s.openedAt() + openPeriodMs(p, s.openCycles(), s.lastFailureKind()) - now);
        }
        return new BreakerView(s.key(), s.state(), s.failureCount(), s.lastFailureAt(), retryAfter, s.openCycles(),
                s.lastFailureKind());
    }

    private static BreakerSnapshot counts(BreakerSnapshot s, ProviderClass cls, int failureCount, int streak, long now) {
        return new BreakerSnapshot(s.key(), cls, s.state(), failureCount, s.openCycles(), s.openedAt(), s.lastFailureAt(),
                s.lastFailureKind(), streak, now);
    }

    /**
     * Installs the next snapshot and persists it; caller holds the cell's lock.
     *
     * @param why the reason of a state change, logged; null when the state stays
     */
    private void move(Cell c, BreakerSnapshot next, String why) {
        BreakerState from = c.snap.state();
        if (from != next.state() && !from.canMoveTo(next.state())) {
            throw new IllegalStateException("illegal breaker move " + from + " -> " + next.state() + " for " + next.key());
        }
        c.snap = next;
        if (next.state() != BreakerState.HALF_OPEN) {
            c.probe = null;
        }
        if (from != next.state()) {
            Level level = next.state() == BreakerState.OPEN || from == BreakerState.OPEN ? Level.INFO : Level.DEBUG;
            LOG.log(level, () -> "breaker " + next.key() + " " + from + " -> " + next.state() + ": " + why);
        }
        store.save(next);
    }

    /** Frees the half-open probe claim; caller holds the cell's lock and a claim is held. */
    private static void releaseProbe(Cell c, String why) {
        c.probe = null;
        LOG.log(Level.DEBUG, () -> "breaker " + c.snap.key() + " half-open probe released: " + why);
    }

    /** Remembers a counted failure for dedupe; caller holds the cell's lock. */
    private void remember(Cell c, BreakerKey key, String connectionId, long now) {
        if (connectionId != null) {
            c.dedupeUntil = dedupe.remember(key, connectionId, now);
        }
    }

    /** One breaker: its current snapshot and the transient probe claim, guarded by {@code lock}. */
    private static final class Cell {
        final ReentrantLock lock = new ReentrantLock();
        /** Written under {@code lock}; read without it only for the lock-free fast paths. */
        volatile BreakerSnapshot snap;
        /** The class callers last named; persisted with the next change. */
        volatile ProviderClass cls;
        /** The token of the half-open probe holding the claim, or null; never persisted. */
        Admission probe;
        /** When {@link #probe} was claimed (meaningful only while it is set). */
        long probeClaimedAt;
        /**
         * Until when a dedupe entry of this breaker may still be in its window (the last counted
         * failure with a connection id + {@link #DEDUPE_WINDOW_MS}); lets a success skip the
         * dedupe map when nothing of this breaker can be deduplicated.
         */
        volatile long dedupeUntil = Long.MIN_VALUE;
        /** Set when evicted or reset: a caller that finds it looks the key up again. */
        boolean removed;

        Cell(BreakerSnapshot s) {
            this.snap = s;
            this.cls = s.providerClass();
        }
    }

    /**
     * The breaker's answer to one attempt ({@link #admit}): {@link #REFUSED}, {@link #ADMITTED},
     * or a half-open probe token. A probe token is a fresh object per claim, compared by identity:
     * it is the claim's generation, so only the attempt that got it can release that claim
     * ({@link #onNeutral(BreakerKey, Admission)}), never a straggler nor an older probe whose
     * lease expired. Immutable and thread-safe.
     */
    public static final class Admission {

        /** The attempt must not go upstream ({@code OPEN}, or {@code HALF_OPEN} with a probe in flight). */
        public static final Admission REFUSED = new Admission(false);

        /** The attempt may go upstream and holds no probe ({@code CLOSED} or {@code DEGRADED}). */
        public static final Admission ADMITTED = new Admission(true);

        private final boolean admitted;

        private Admission(boolean admitted) {
            this.admitted = admitted;
        }

        /** @return true when the attempt may go upstream (an ordinary admission or the probe) */
        public boolean admitted() {
            return admitted;
        }

        /** @return true when this attempt is the half-open probe (it holds the claim) */
        public boolean probe() {
            return admitted && this != ADMITTED;
        }

        @Override
        public String toString() {
            return this == REFUSED ? "REFUSED" : this == ADMITTED ? "ADMITTED" : "PROBE";
        }
    }
}
