package dev.sluice.runtime.combo.routing;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.Outcome;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The combo's waiting rules (SPEC CO-3, CO-4, CO-5, CO-6): which holds pass by themselves soon
 * enough to wait for, whether to wait, how a fully held-back combo answers. Pure functions but
 * {@link #waitOut}, which sleeps in slices and asks the client before each.
 */
final class ComboWait {

    /** Failure reasons a combo never waits for (CO-3): quota, auth, not found. */
    static final Set<FailureReason> NOT_WAITABLE = EnumSet.of(FailureReason.QUOTA_EXHAUSTED, FailureReason.CREDITS_EXHAUSTED,
            FailureReason.AUTH_ERROR, FailureReason.FORBIDDEN, FailureReason.EXPIRED, FailureReason.BANNED, FailureReason.NOT_FOUND,
            FailureReason.NOT_FOUND_LOCAL, FailureReason.MODEL_ACCESS_DENIED, FailureReason.REQUEST_REJECTED);
    /** CO-3: a wait ends this long after the cooldown it waits for. */
    static final long WAIT_MARGIN_MS = 50;
    /** CO-3: a wait is slept in slices this long, the client's connection checked before each. */
    static final long WAIT_SLICE_MS = 100;

    private ComboWait() {
    }

    /**
     * Sleeps {@code ms} in slices of {@link #WAIT_SLICE_MS}, asking the client before each.
     *
     * @param ms how long
     * @param client the client
     * @param sleeper how to sleep
     * @return false when the client went away (the wait ended early)
     * @throws InterruptedException when interrupted
     */
    static boolean waitOut(long ms, ClientLiveness client, ComboRouter.Sleeper sleeper) throws InterruptedException {
        for (long left = ms; left > 0; left -= WAIT_SLICE_MS) {
            if (!client.connected()) {
                return false;
            }
            sleeper.sleep(Math.min(WAIT_SLICE_MS, left));
        }
        return client.connected();
    }

    /**
     * CO-6: an honoured connection-scoped quota rule (§16.2 ER-3) exhausts the connection for the
     * rest of the request, whether or not a cooldown persists it ({@code disableCooling}).
     */
    static boolean exhaustsConnection(Verdict v) {
        return v.ruleScope() == LockScope.CONNECTION && v.lockScope() == LockScope.CONNECTION && v.reason() == FailureReason.QUOTA_EXHAUSTED;
    }

    /** CO-3: only a request that would end in a transient 429 waits. */
    static boolean transient429(Verdict v) {
        return v.status() == 429 && !notWaitable(v.reason());
    }

    private static boolean notWaitable(FailureReason r) {
        return r != null && NOT_WAITABLE.contains(r);
    }

    /**
     * CO-4: {@code enabled ∧ 0 < wait ≤ maxWaitMs ∧ attempt < maxAttempts ∧ budgetLeft ≥ wait},
     * with {@code wait} the earliest transient expiry + 50 ms.
     *
     * @param w the settings
     * @param transientMs ms until the earliest waitable hold ends, or -1 when there is none
     * @param waits waits so far in this request
     * @param waited ms waited so far in this request
     * @return whether to wait
     */
    static boolean mayWait(ResilienceSettings.ComboCooldownWait w, long transientMs, int waits, long waited) {
        if (!w.enabled() || transientMs < 0) {
            return false;
        }
        long wait = transientMs + WAIT_MARGIN_MS;
        return wait <= w.maxWaitMs() && waits < w.maxAttempts() && waited + wait <= w.budgetMs();
    }

    /** A connection cooldown or model lockout whose failure may pass by itself (CO-3). */
    private static boolean waitable(Exclusion e) {
        return (e.reason() == Exclusion.Reason.UNAVAILABLE || e.reason() == Exclusion.Reason.MODEL_LOCKOUT) && !notWaitable(e.cause());
    }

    /** The soonest end of a waitable hold, or -1. */
    static long soonestTransient(List<ConnectionSelector.Excluded> excluded) {
        long soonest = -1;
        for (ConnectionSelector.Excluded x : excluded) {
            if (waitable(x.exclusion()) && (soonest < 0 || x.exclusion().remainingMs() < soonest)) {
                soonest = x.exclusion().remainingMs();
            }
        }
        return soonest;
    }

    /** CO-4 / CO-5: how a fully held-back combo answers. */
    static Outcome.Held classify(List<ConnectionSelector.Excluded> excluded) {
        boolean anyTimer = false;
        boolean allWaitable = true;
        boolean allNotWaitable = true;
        for (ConnectionSelector.Excluded x : excluded) {
            Exclusion e = x.exclusion();
            if (!e.reason().timer()) {
                continue;
            }
            anyTimer = true;
            boolean lock = e.reason() == Exclusion.Reason.UNAVAILABLE || e.reason() == Exclusion.Reason.MODEL_LOCKOUT;
            allWaitable &= waitable(e);
            allNotWaitable &= lock && notWaitable(e.cause());
        }
        if (!anyTimer) {
            return Outcome.Held.NONE;
        }
        if (allNotWaitable) {
            return Outcome.Held.SKIPPED;
        }
        return allWaitable ? Outcome.Held.RATE_LIMITED : Outcome.Held.NONE;
    }

    /** CO-5: every target held back before dispatch — by timers (503) or by nothing that will pass (404). */
    static Outcome.Unserved held(List<ConnectionSelector.Excluded> excluded) {
        long soonest = -1;
        for (ConnectionSelector.Excluded x : excluded) {
            Exclusion e = x.exclusion();
            if (e.reason().timer() && (soonest < 0 || e.remainingMs() < soonest)) {
                soonest = e.remainingMs();
            }
        }
        return soonest < 0 ? new Outcome.NoConnection(null, excluded, null) : new Outcome.CoolingDown(null, soonest, excluded, null);
    }
}
