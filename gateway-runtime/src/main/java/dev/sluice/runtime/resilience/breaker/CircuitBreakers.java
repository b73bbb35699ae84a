package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Closed;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Degraded;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.store.BreakerRowStore;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * The provider circuit breakers (SPEC §6), one per {@link BreakerKey} (provider and upstream host,
 * BO-4), persisted through a {@link BreakerStore} (CB-7). The breakers' one entry point, split
 * by job: states {@link BreakerStatus}, legal moves {@link BreakerTransition}, one breaker
 * {@link BreakerCell}, which exist {@link BreakerRegistry}, dedupe {@link FailureDedupe}, rows
 * {@link BreakerPersistence}, periods {@link BreakerPeriods}.
 *
 * <p>There is no timer (CB-6): every call first applies the transitions that time alone makes
 * ({@code OPEN → HALF_OPEN} once the open period passed, a stale {@code DEGRADED → CLOSED}, the
 * release of a half-open probe that never reported, after {@link BreakerPeriods#probeLeaseMs}). Thresholds and
 * periods are read from the live settings on every call, for the class the caller names.
 *
 * <p>Each breaker has its own lock ({@link BreakerCell}). The common case (a {@code CLOSED}
 * breaker asked whether traffic may flow, or told of a success with nothing to forget) takes no
 * lock and writes nothing. Unknown keys are {@code CLOSED}; a breaker is created by its first
 * counted failure.
 *
 * <p>The half-open probe is held by one caller: {@link #admit} hands it an {@link Admission} token
 * that no other caller holds, and only that token releases the claim on a neutral outcome
 * ({@link #onNeutral(BreakerKey, Admission)}). A straggler (an attempt admitted while the breaker
 * was still {@code CLOSED} or {@code DEGRADED}, ending after it went {@code HALF_OPEN}) or an
 * earlier probe whose lease expired therefore cannot free the claim of the probe in flight.
 * Successes and counted failures, though, are judged by state, not by caller
 * ({@link BreakerStatus.HalfOpen}).
 */
public final class CircuitBreakers implements Mechanism {

    /** Consecutive successes that take a {@code DEGRADED} breaker back to {@code CLOSED} (CB-5). */
    public static final int DEGRADED_EXIT_SUCCESSES = Degraded.EXIT_SUCCESSES;

    /** Failures of one connection on one breaker within this many ms of its last counted one count once (CB-4). */
    public static final long DEDUPE_WINDOW_MS = FailureDedupe.WINDOW_MS;

    /** Bound of the dedupe memory (connection × breaker entries); stale entries are dropped first. */
    public static final int DEDUPE_MAX_ENTRIES = FailureDedupe.MAX_ENTRIES;

    /** Registry cap: when reached, idle {@code CLOSED} breakers with no failures are evicted first. */
    public static final int MAX_BREAKERS = BreakerRegistry.MAX_BREAKERS;

    /** Least time a claimed half-open probe keeps its claim when it never reports (CB-1, {@link BreakerPeriods#probeLeaseMs}). */
    public static final long PROBE_LEASE_MS = BreakerPeriods.PROBE_LEASE_MS;

    /** The class whose profile applies to a breaker no caller has named yet (e.g. restored without one). */
    public static final ProviderClass DEFAULT_CLASS = ProviderClass.APIKEY;

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final FailureDedupe dedupe = new FailureDedupe();
    private final BreakerRegistry registry;
    private final SharedBreakerProbes shared;

    /**
     * Creates the breakers and restores every persisted one (CB-7); a restored {@code HALF_OPEN}
     * breaker has no probe in flight.
     *
     * @param clock the clock
     * @param settings the live resilience settings, read on every call
     * @param store the persistence ({@link BreakerStore#rows} over the breaker table, {@link BreakerStore#none()})
     * @param board what several instances share of their open state and half-open probe ({@link BreakerBoard#NONE}: nothing)
     */
    public CircuitBreakers(InstantSource clock, Supplier<ResilienceSettings> settings, BreakerStore store, BreakerBoard board) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.registry = new BreakerRegistry(clock, new BreakerPersistence(store), dedupe);
        this.shared = new SharedBreakerProbes(board);
    }

    /**
     * May this attempt go upstream? {@code CLOSED} and {@code DEGRADED}: {@link Admission#ADMITTED}.
     * {@code OPEN}: {@link Admission#REFUSED}. {@code HALF_OPEN}: a fresh probe token (see
     * {@link Admission#probe()}) for exactly one caller, until an outcome is reported or
     * {@link BreakerPeriods#probeLeaseMs} passed since it was claimed (a safety lease for probes that never
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
        Admission local = decideLocally(key, cls, claim);
        if (!local.admitted() || !shared.shared()) {
            return local;
        }
        // NF-6: an instance whose breaker opened refuses the host for everyone; one probe over all instances
        if (shared.admit(key, claim, BreakerPeriods.probeLeaseMs(profile(cls))) > 0) {
            if (local.probe()) {
                registry.locked(key, null, c -> {
                    c.releaseIfHeldBy(local, "another instance holds the shared probe");
                    return null;
                });
            }
            return Admission.REFUSED;
        }
        return local;
    }

    /** The shared open period of this breaker, ms, or 0 when no other instance announced one. */
    private long sharedRetryAfterMs(BreakerKey key, ProviderClass cls) {
        return shared.shared() ? Math.max(0, shared.admit(key, false, BreakerPeriods.probeLeaseMs(profile(cls)))) : 0;
    }

    private Admission decideLocally(BreakerKey key, ProviderClass cls, boolean claim) {
        requireNonNull(cls, "cls is null");
        BreakerCell cell = registry.peek(key);
        if (cell == null) {
            return Admission.ADMITTED;
        }
        if (cell.cls != cls) {
            cell.cls = cls;
        }
        if (cell.status() instanceof Closed) {
            return Admission.ADMITTED;
        }
        Admission answer = registry.locked(key, null, c -> c.admit(profile(cls), claim, clock.millis()));
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
        shared.probeSucceeded(key);
        BreakerCell cell = registry.peek(key);
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
        if (cell.idle()) {
            return;
        }
        registry.locked(key, null, c -> {
            long now = clock.millis();
            BreakerProfile p = profile(cls);
            c.elapse(p, now);
            c.move(c.status().onSuccess(p), cls, now);
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
        boolean[] opened = {false};
        registry.locked(key, cls, c -> {
            c.cls = cls;
            long now = clock.millis();
            BreakerProfile p = profile(cls);
            c.elapse(p, now);
            BreakerStatus s = c.status();
            BreakerStatus.Move m = s.onFailure(p, now, kind);
            if (m == null || s.dedupesFailures() && dedupe.isRepeat(key, connectionId, now)) {
                return null;
            }
            if (connectionId != null) {
                c.dedupeUntil = dedupe.remember(key, connectionId, now);
            }
            c.move(m, cls, now);
            opened[0] = !(s instanceof BreakerStatus.Open) && c.status() instanceof BreakerStatus.Open;
            return null;
        });
        boolean sharedProbeFailed = shared.probeEnded(key);
        if (shared.shared() && (opened[0] || sharedProbeFailed)) {
            // NF-6: open on every instance; a failed shared probe opens it again for one more cycle (BO-3)
            BreakerProfile p = profile(cls);
            long period = opened[0] ? Math.max(1, retryAfterMs(key, cls)) : BreakerPeriods.openPeriodMs(p, 1, kind);
            shared.opened(key, period, BreakerPeriods.probeLeaseMs(p));
        }
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
        if (admission.admitted()) {
            shared.probeReleased(key);
        }
        if (!admission.probe() || registry.peek(key) == null) {
            return;
        }
        registry.locked(key, null, c -> {
            c.releaseIfHeldBy(admission, "probe ended without evidence");
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
        BreakerCell cell = registry.peek(key);
        if (cell == null || !(cell.status() instanceof Degraded)) {
            return;
        }
        registry.locked(key, null, c -> {
            c.move(c.status().onConnectionTestSuccess(), c.cls, clock.millis());
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
        BreakerView v = registry.locked(key, null, c -> {
            c.cls = cls;
            return c.view(profile(cls), clock.millis());
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
        List<BreakerView> out = registry.eachLocked(c -> c.view(profile(c.cls), clock.millis()));
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
        return Math.max(view(key, cls).retryAfterMs(), sharedRetryAfterMs(key, cls));
    }

    /**
     * Forgets every breaker (they are {@code CLOSED} with no history), deletes their rows and their
     * shared open state (NF-6: no instance refuses their hosts any longer).
     *
     * @return how many breakers were reset here
     */
    public int reset() {
        shared.reset(null);
        return registry.reset();
    }

    /**
     * Forgets every breaker of one provider, on all its hosts, deletes their rows and their shared
     * open state.
     *
     * @param provider the provider id
     * @return how many breakers were reset here
     */
    public int reset(String provider) {
        requireNonNull(provider, "provider is null");
        shared.reset(provider);
        return registry.reset(provider);
    }

    /**
     * An open breaker holds every connection of its host back; asked once per host and request
     * (the answer is kept in the check).
     */
    @Override
    public boolean holds(HoldCheck check) {
        BreakerKey key = check.breakerKey();
        long ms = check.memo(key);
        if (ms < 0) {
            ms = check.memo(key, canExecute(key, check.providerClass()) ? 0 : Math.max(1, retryAfterMs(key, check.providerClass())));
        }
        return ms > 0 && check.hold(Exclusion.Reason.CIRCUIT_OPEN, ms);
    }

    /**
     * Failures with {@link Verdict#countsForBreaker()} count, and so does a honoured
     * provider-scoped rule (ER-3: evidence about the provider, like a 5xx); anything else is no
     * evidence about the provider, so a probe that got a 429 lets the next request probe.
     */
    @Override
    public void onFailure(FailedCandidate failed) {
        Verdict v = failed.verdict();
        Candidate c = failed.candidate();
        if (v.countsForBreaker() || (v.lockScope() == LockScope.PROVIDER && v.ruleScope() == LockScope.PROVIDER)) {
            onFailure(c.breakerKey(), c.providerClass(), c.connection().id(), v.reason().wireName());
        } else {
            onNeutral(c.breakerKey(), failed.claim() instanceof Admission a ? a : Admission.REFUSED);
        }
    }

    @Override
    public void onSuccess(Candidate served) {
        onSuccess(served.breakerKey(), served.providerClass(), served.connection().id());
    }

    /** A reset another instance made (NF-6): this instance's breakers only; the shared state is gone already. */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        if (event instanceof ClusterEvent.BreakersReset r) {
            shared.forget(r.provider());
            if (r.provider() == null) {
                registry.reset();
            } else {
                registry.reset(r.provider());
            }
        }
    }

    /** @return breakers held in memory (for tests of the registry cap) */
    int size() {
        return registry.size();
    }

    /** @return entries of the dedupe memory (for tests of its bound) */
    int dedupeEntries() {
        return dedupe.size();
    }

    private BreakerProfile profile(ProviderClass cls) {
        return settings.get().circuitBreaker().forClass(cls == null ? DEFAULT_CLASS : cls);
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

        /** @return a fresh probe token: a new identity, so only its holder can release its claim */
        static Admission newProbe() {
            return new Admission(true);
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
