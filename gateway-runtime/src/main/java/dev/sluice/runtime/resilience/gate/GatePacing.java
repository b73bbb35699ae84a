package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Pacing;

/**
 * How far apart starts on one connection must be (RQ-10): the configured spacing of the request's
 * {@link Limits} or the spacing learned from the upstream's rate-limit headers, whichever is
 * longer. The time of the last start is kept under the owning {@link Gate}'s lock; the learned
 * pacing is volatile, replaced without the lock and read by the lock-free fast path.
 *
 * <p>A step after the turn ({@link TurnSteps}) may move the start: {@link #startsAt} records when
 * the request really starts, and {@link #undo} forgets a turn that did not start, so a later start
 * decided elsewhere and the local spacing never add up.
 */
final class GatePacing {

    private volatile Pacing learned;
    private long lastStartAt = Long.MIN_VALUE / 2;
    private long previousStartAt = Long.MIN_VALUE / 2;

    /** The learned pacing, possibly expired, or null. */
    Pacing learned() {
        return learned;
    }

    /** Replaces the learned pacing. */
    void learn(Pacing pacing) {
        learned = pacing;
    }

    /** Whether no learned pacing is in force at {@code now} (lock-free). */
    boolean over(long now) {
        Pacing p = learned;
        return p == null || p.untilMs() <= now;
    }

    /** The least spacing between starts now: configured or learned, whichever is longer. */
    long spacing(Limits limits, long now) {
        Pacing p = learned;
        return Math.max(limits.minSpacingMs(), p != null && p.untilMs() > now ? p.spacingMs() : 0);
    }

    /** When pacing next lets a start happen (≤ now: now). */
    long nextStart(Limits limits, long now) {
        long spacing = spacing(limits, now);
        return spacing == 0 ? now : lastStartAt + spacing;
    }

    /** Records a start, from which the next one is spaced. */
    void started(long at) {
        previousStartAt = lastStartAt;
        lastStartAt = at;
    }

    /** The last start really happens at {@code at} (decided after the turn): the next is spaced from there. */
    void startsAt(long at) {
        lastStartAt = Math.max(lastStartAt, at);
    }

    /**
     * The start recorded at {@code takenAt} did not happen: forgets it while it is still the last.
     *
     * @return whether it was forgotten (the next start may come earlier)
     */
    boolean undo(long takenAt) {
        if (lastStartAt != takenAt) {
            return false;
        }
        lastStartAt = previousStartAt;
        return true;
    }
}
