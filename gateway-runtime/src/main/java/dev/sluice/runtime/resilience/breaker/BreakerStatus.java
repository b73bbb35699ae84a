package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers.Admission;

/**
 * One breaker's state together with the data that state needs (SPEC CB-1): one immutable record
 * per {@link BreakerState}, as Resilience4j gives each state its own type. A field only one state
 * uses (the open instant, the success streak, the half-open probe) lives only in that state's
 * record, so no state can be built with another's leftovers.
 *
 * <p>The event methods are pure: they answer the {@link Move} an event makes from this state (or
 * null when it changes nothing there), computed from the profile and the instant the caller read
 * from its clock. Checking the move against {@link BreakerTransition}, installing it and
 * persisting it is {@link BreakerCell#move}'s job, under the breaker's lock.
 */
sealed interface BreakerStatus {

    /** @return the state this record is */
    BreakerState state();

    /** @return the counts and last failure, kept across states */
    History history();

    /**
     * The move time alone makes (CB-6): there is no timer, so every call applies it first.
     *
     * @param p the profile
     * @param now epoch ms
     * @return the move, or null
     */
    default Move elapse(BreakerProfile p, long now) {
        return null;
    }

    /**
     * An attempt succeeded upstream.
     *
     * @param p the profile
     * @return the move, or null
     */
    Move onSuccess(BreakerProfile p);

    /**
     * A counted failure (already past the dedupe, see {@link #dedupesFailures()}).
     *
     * @param p the profile
     * @param now epoch ms
     * @param kind the failure kind
     * @return the move, or null when failures are ignored in this state
     */
    Move onFailure(BreakerProfile p, long now, String kind);

    /**
     * Whether a failure here is first checked against the connection's last counted one (CB-4):
     * only while traffic flows. A half-open probe's failure is always new evidence.
     *
     * @return true in {@code CLOSED} and {@code DEGRADED}
     */
    default boolean dedupesFailures() {
        return false;
    }

    /**
     * A connection test on this provider host succeeded (CB-5).
     *
     * @return the move, or null
     */
    default Move onConnectionTestSuccess() {
        return null;
    }

    /**
     * @param p the profile
     * @param now epoch ms
     * @return ms until a probe may go through; 0 except in {@code OPEN}
     */
    default long retryAfterMs(BreakerProfile p, long now) {
        return 0;
    }

    /**
     * The persisted form of this state.
     *
     * @param key the breaker
     * @param cls the class to persist, or null
     * @param updatedAt epoch ms of the change
     * @return the snapshot
     */
    default BreakerSnapshot toSnapshot(BreakerKey key, ProviderClass cls, long updatedAt) {
        History h = history();
        BreakerSnapshot.Builder b = BreakerSnapshot.builder(key, state()).providerClass(cls)
                .failureCount(h.failureCount()).openCycles(h.openCycles())
                .lastFailure(h.lastFailureAt(), h.lastFailureKind()).updatedAt(updatedAt);
        switch (this) {
            case Closed c -> { }
            case Degraded d -> b.consecutiveSuccesses(d.successStreak());
            case Open o -> b.openedAt(o.openedAt());
            case HalfOpen ho -> b.openedAt(ho.openedAt());
        }
        return b.build();
    }

    /**
     * The state a persisted snapshot restores (CB-7). A half-open breaker comes back with no
     * probe in flight; fields its state does not use are not carried.
     *
     * @param s the snapshot
     * @return the state
     */
    static BreakerStatus of(BreakerSnapshot s) {
        History h = new History(s.failureCount(), s.openCycles(), s.lastFailureAt(), s.lastFailureKind());
        return switch (s.state()) {
            case CLOSED -> new Closed(h);
            case DEGRADED -> new Degraded(h, s.consecutiveSuccesses());
            case OPEN -> new Open(h, s.openedAt());
            case HALF_OPEN -> new HalfOpen(h, s.openedAt(), null, 0);
        };
    }

    /**
     * What an event does: the next state, and why (logged when the state changes).
     *
     * @param to the next state
     * @param why the reason, or null when the state stays
     */
    record Move(BreakerStatus to, String why) {
        /** Validates. */
        public Move {
            requireNonNull(to, "to is null");
        }
    }

    /**
     * What every state carries.
     *
     * @param failureCount counted failures (CB-3, deduplicated)
     * @param openCycles open cycles (CB-4): 0 on the first open, +1 per failed probe
     * @param lastFailureAt epoch ms of the last counted failure, or null
     * @param lastFailureKind its kind, or null
     */
    record History(int failureCount, int openCycles, Long lastFailureAt, String lastFailureKind) {

        /** No failures ever. */
        static final History NONE = new History(0, 0, null, null);

        /** Validates. */
        public History {
            if (failureCount < 0 || openCycles < 0) {
                throw new IllegalArgumentException("negative counter");
            }
        }

        History withFailureCount(int n) {
            return new History(n, openCycles, lastFailureAt, lastFailureKind);
        }
    }

    /**
     * Normal: traffic flows, failures are counted.
     *
     * @param history the counts
     */
    record Closed(History history) implements BreakerStatus {

        /** Validates. */
        public Closed {
            requireNonNull(history, "history is null");
        }

        @Override
        public BreakerState state() {
            return BreakerState.CLOSED;
        }

        /** @return true when nothing would be lost by forgetting this breaker (the registry's eviction) */
        boolean idle() {
            return history.failureCount() == 0;
        }

        @Override
        public Move onSuccess(BreakerProfile p) {
            // Gradual recovery: each success takes back one counted failure.
            int count = history.failureCount();
            return count > 0 ? new Move(new Closed(history.withFailureCount(count - 1)), null) : null;
        }

        @Override
        public Move onFailure(BreakerProfile p, long now, String kind) {
            return counted(this, p, now, kind);
        }

        @Override
        public boolean dedupesFailures() {
            return true;
        }
    }

    /**
     * Traffic still flows; the failure count is elevated and watched (CB-5).
     *
     * @param history the counts
     * @param successStreak successes in a row since the last counted failure
     */
    record Degraded(History history, int successStreak) implements BreakerStatus {

        /** See {@link CircuitBreakers#DEGRADED_EXIT_SUCCESSES}. */
        static final int EXIT_SUCCESSES = 3;

        /** Validates. */
        public Degraded {
            requireNonNull(history, "history is null");
            if (successStreak < 0) {
                throw new IllegalArgumentException("negative success streak");
            }
        }

        @Override
        public BreakerState state() {
            return BreakerState.DEGRADED;
        }

        @Override
        public Move elapse(BreakerProfile p, long now) {
            Long last = history.lastFailureAt();
            if (last == null || now - last >= BreakerPeriods.degradedExpiryMs(p, history.lastFailureKind())) {
                return new Move(new Closed(history.withFailureCount(0)), "no failure for the longest open period");
            }
            return null;
        }

        @Override
        public Move onSuccess(BreakerProfile p) {
            int count = Math.max(0, history.failureCount() - 1);
            int streak = successStreak + 1;
            if (streak >= EXIT_SUCCESSES) {
                // CLOSED means below the degradation threshold: the next failure alone must not degrade again.
                int kept = Math.min(count, Math.max(0, p.degradationThreshold() - 1));
                return new Move(new Closed(history.withFailureCount(kept)), streak + " consecutive successes");
            }
            return new Move(new Degraded(history.withFailureCount(count), streak), null);
        }

        @Override
        public Move onFailure(BreakerProfile p, long now, String kind) {
            return counted(this, p, now, kind);
        }

        @Override
        public boolean dedupesFailures() {
            return true;
        }

        @Override
        public Move onConnectionTestSuccess() {
            return new Move(new Closed(history.withFailureCount(0)), "connection test succeeded");
        }
    }

    /**
     * The provider host is skipped until the open period passes (CB-4). Successes and failures
     * reported meanwhile (stragglers admitted earlier) are ignored, so they neither close the
     * breaker early nor extend the period.
     *
     * @param history the counts
     * @param openedAt epoch ms when it opened; null (a restored row without it) means the period passed
     */
    record Open(History history, Long openedAt) implements BreakerStatus {

        /** Validates. */
        public Open {
            requireNonNull(history, "history is null");
        }

        @Override
        public BreakerState state() {
            return BreakerState.OPEN;
        }

        @Override
        public Move elapse(BreakerProfile p, long now) {
            if (openedAt == null || now - openedAt >= period(p)) {
                return new Move(new HalfOpen(history, openedAt, null, 0), "open period passed");
            }
            return null;
        }

        @Override
        public Move onSuccess(BreakerProfile p) {
            return null;
        }

        @Override
        public Move onFailure(BreakerProfile p, long now, String kind) {
            return null;
        }

        @Override
        public long retryAfterMs(BreakerProfile p, long now) {
            // Asked after elapse(), so a missing openedAt has already become HALF_OPEN.
            return Math.max(0, openedAt + period(p) - now);
        }

        private long period(BreakerProfile p) {
            return BreakerPeriods.openPeriodMs(p, history.openCycles(), history.lastFailureKind());
        }
    }

    /**
     * The open period passed: one probe may go upstream (CB-1, BO-3). The probe's claim is held
     * here and never persisted, so a restored breaker has no probe in flight.
     *
     * <p>Successes and counted failures are judged by state, not by caller: the first one
     * reported decides, whoever reports it. A straggler's success closes the breaker and its
     * counted failure re-opens it, because either is a real upstream outcome seen after the open
     * period passed, as good as the probe's own (BO-3); the probe's later report then finds the
     * breaker in its new state and is judged there.
     *
     * @param history the counts
     * @param openedAt epoch ms when it last opened, or null
     * @param probe the token of the probe holding the claim, or null when the probe is free
     * @param probeClaimedAt epoch ms of the claim (meaningful only while {@code probe} is set)
     */
    record HalfOpen(History history, Long openedAt, Admission probe, long probeClaimedAt) implements BreakerStatus {

        /** Validates. */
        public HalfOpen {
            requireNonNull(history, "history is null");
        }

        @Override
        public BreakerState state() {
            return BreakerState.HALF_OPEN;
        }

        /** @return this state with its probe claimed by {@code token} at {@code now} */
        HalfOpen claimedBy(Admission token, long now) {
            return new HalfOpen(history, openedAt, requireNonNull(token, "token is null"), now);
        }

        /** @return this state with the probe free */
        HalfOpen released() {
            return new HalfOpen(history, openedAt, null, 0);
        }

        /**
         * Whether a claimed probe kept its claim past {@link BreakerPeriods#probeLeaseMs}: a probe
         * that never reports must not hold the breaker half-open forever.
         *
         * @param p the profile
         * @param now epoch ms
         * @return true when the claim should be released
         */
        boolean leaseExpired(BreakerProfile p, long now) {
            return probe != null && now - probeClaimedAt >= BreakerPeriods.probeLeaseMs(p);
        }

        @Override
        public Move onSuccess(BreakerProfile p) {
            return new Move(new Closed(new History(0, 0, history.lastFailureAt(), history.lastFailureKind())),
                    "half-open probe succeeded");
        }

        @Override
        public Move onFailure(BreakerProfile p, long now, String kind) {
            History h = new History(history.failureCount() + 1, history.openCycles() + 1, now, kind);
            return new Move(new Open(h, now), "half-open probe failed (" + kind + ")");
        }
    }

    /**
     * A counted failure while traffic flows (CB-2, CB-5): at {@code failureThreshold} the breaker
     * opens with a fresh cycle count, at {@code degradationThreshold} it degrades; below that it
     * stays where it is. Either way a degraded breaker's success streak starts over.
     */
    private static Move counted(BreakerStatus from, BreakerProfile p, long now, String kind) {
        History h = from.history();
        int count = h.failureCount() + 1;
        String why = count + " failures (" + kind + ")";
        if (count >= p.failureThreshold()) {
            return new Move(new Open(new History(count, 0, now, kind), now), why);
        }
        History next = new History(count, h.openCycles(), now, kind);
        if (count >= p.degradationThreshold() || from instanceof Degraded) {
            return new Move(new Degraded(next, 0), why);
        }
        return new Move(new Closed(next), null);
    }
}
