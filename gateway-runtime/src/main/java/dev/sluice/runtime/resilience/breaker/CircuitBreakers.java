package dev.sluice.runtime.resilience.breaker;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.classify.Verdict;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Supplier;

/**
 * The provider circuit breakers (SPEC §6) as the engine and the admin API see them: one
 * instance's breakers ({@link #local}), or those breakers with their open state and half-open
 * probe shared by every instance (NF-6: {@code breaker.shared.SharedCircuitBreakers}, a decorator
 * beside its board). The mechanism's part ({@link Mechanism}) is written once here, in terms of
 * the operations, so a decorator only changes the operations it shares.
 *
 * <p>The half-open probe is held by one caller: {@link #admit} hands it an {@link Admission} token
 * that no other caller holds, and only that token releases the claim on a neutral outcome
 * ({@link #onNeutral(BreakerKey, Admission)}). A straggler (an attempt admitted while the breaker
 * was still {@code CLOSED} or {@code DEGRADED}, ending after it went {@code HALF_OPEN}) or an
 * earlier probe whose lease expired therefore cannot free the claim of the probe in flight.
 * Successes and counted failures, though, are judged by state, not by caller
 * ({@link BreakerStatus.HalfOpen}).
 */
public interface CircuitBreakers extends Mechanism {

    /** Consecutive successes that take a {@code DEGRADED} breaker back to {@code CLOSED} (CB-5). */
    int DEGRADED_EXIT_SUCCESSES = BreakerStatus.Degraded.EXIT_SUCCESSES;

    /** Failures of one connection on one breaker within this many ms of its last counted one count once (CB-4). */
    long DEDUPE_WINDOW_MS = FailureDedupe.WINDOW_MS;

    /** Bound of the dedupe memory (connection × breaker entries); stale entries are dropped first. */
    int DEDUPE_MAX_ENTRIES = FailureDedupe.MAX_ENTRIES;

    /** Registry cap: when reached, idle {@code CLOSED} breakers with no failures are evicted first. */
    int MAX_BREAKERS = BreakerRegistry.MAX_BREAKERS;

    /** Least time a claimed half-open probe keeps its claim when it never reports (CB-1, {@link BreakerPeriods#probeLeaseMs}). */
    long PROBE_LEASE_MS = BreakerPeriods.PROBE_LEASE_MS;

    /** The class whose profile applies to a breaker no caller has named yet (e.g. restored without one). */
    ProviderClass DEFAULT_CLASS = ProviderClass.APIKEY;

    /**
     * One instance's breakers, sharing nothing; every persisted breaker is restored (CB-7), a
     * restored {@code HALF_OPEN} breaker with no probe in flight.
     *
     * @param clock the clock
     * @param settings the live resilience settings, read on every call
     * @param store the persistence ({@link BreakerStore#rows} over the breaker table, {@link BreakerStore#none()})
     * @return the breakers
     */
    static CircuitBreakers local(InstantSource clock, Supplier<ResilienceSettings> settings, BreakerStore store) {
        return new LocalCircuitBreakers(clock, settings, store);
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
    Admission admit(BreakerKey key, ProviderClass cls);

    /**
     * The same answer as {@link #admit} without claiming the half-open probe: false when
     * {@code OPEN}, or {@code HALF_OPEN} with a probe in flight.
     *
     * @param key the breaker
     * @param cls the connection's provider class
     * @return true when an attempt could proceed now
     */
    boolean canExecute(BreakerKey key, ProviderClass cls);

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
    void onSuccess(BreakerKey key, ProviderClass cls, String connectionId);

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
     * @return true when this failure opened the breaker (from {@code CLOSED}, {@code DEGRADED} or {@code HALF_OPEN})
     */
    boolean onFailure(BreakerKey key, ProviderClass cls, String connectionId, String kind);

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
    void onNeutral(BreakerKey key, Admission admission);

    /**
     * A connection test on this provider host succeeded: a {@code DEGRADED} breaker is
     * {@code CLOSED} again with no failures (CB-5). Other states are unchanged (an {@code OPEN}
     * breaker still waits for its probe).
     *
     * @param key the breaker
     */
    void recordConnectionTestSuccess(BreakerKey key);

    /**
     * The breaker now, after lazy recovery (CB-6).
     *
     * @param key the breaker
     * @param cls the provider class whose profile applies
     * @return its view ({@code CLOSED} with no history for an unknown key)
     */
    BreakerView view(BreakerKey key, ProviderClass cls);

    /**
     * Every known breaker, after lazy recovery, ordered by key; each uses the profile of the class
     * its callers last named ({@link #DEFAULT_CLASS} when none has).
     *
     * @return the views
     */
    List<BreakerView> views();

    /**
     * Milliseconds until an {@code OPEN} breaker lets a probe through; 0 in every other state.
     *
     * @param key the breaker
     * @param cls the provider class whose profile applies
     * @return the wait in ms
     */
    long retryAfterMs(BreakerKey key, ProviderClass cls);

    /**
     * Forgets every breaker (they are {@code CLOSED} with no history), deletes their rows and, when
     * shared, their shared open state (NF-6: no instance refuses their hosts any longer).
     *
     * @return how many breakers were reset here
     */
    int reset();

    /**
     * Forgets every breaker of one provider, on all its hosts, deletes their rows and, when shared,
     * their shared open state.
     *
     * @param provider the provider id
     * @return how many breakers were reset here
     */
    int reset(String provider);

    /**
     * An open breaker holds every connection of its host back; asked once per host and request
     * (the answer is kept in the check).
     */
    @Override
    default boolean holds(HoldCheck check) {
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
    default void onFailure(FailedCandidate failed) {
        Verdict v = failed.verdict();
        Candidate c = failed.candidate();
        if (v.countsForBreaker() || (v.lockScope() == LockScope.PROVIDER && v.ruleScope() == LockScope.PROVIDER)) {
            onFailure(c.breakerKey(), c.providerClass(), c.connection().id(), v.reason().wireName());
        } else {
            onNeutral(c.breakerKey(), failed.claim() instanceof Admission a ? a : Admission.REFUSED);
        }
    }

    @Override
    default void onSuccess(Candidate served) {
        onSuccess(served.breakerKey(), served.providerClass(), served.connection().id());
    }

    /**
     * The breaker's answer to one attempt ({@link #admit}): {@link #REFUSED}, {@link #ADMITTED},
     * or a half-open probe token. A probe token is a fresh object per claim, compared by identity:
     * it is the claim's generation, so only the attempt that got it can release that claim
     * ({@link #onNeutral(BreakerKey, Admission)}), never a straggler nor an older probe whose
     * lease expired. Immutable and thread-safe.
     */
    final class Admission {

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
