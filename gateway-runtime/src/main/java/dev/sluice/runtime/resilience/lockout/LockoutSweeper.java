package dev.sluice.runtime.resilience.lockout;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the lockout table's memory bounded without a background thread (SPEC §11, ML-4). Reads
 * already remove the entries past their escalation window that they meet; this removes the ones
 * nobody reads any more. A write runs a sweep once more than {@code max(}{@link #THRESHOLD}{@code ,
 * 2 × the count after the previous sweep)} entries are stored, so sweeps cost amortised constant
 * time per write. Unexpired locks are never dropped, so there is no hard cap: the table holds about
 * twice the number of keys that failed within the last {@code maxCooldownMs + baseCooldownMs}
 * (longer for authoritative hints above the maximum).
 */
final class LockoutSweeper {

    /** Stored entries above which a write sweeps out entries past their escalation window. */
    static final int THRESHOLD = 10_000;

    private final LockoutTable table;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile int sweepAbove = THRESHOLD;

    LockoutSweeper(LockoutTable table) {
        this.table = table;
    }

    /**
     * Sweeps when the table has grown past the mark; one sweep at a time, the other writers go on.
     *
     * @param now the current time, epoch ms
     * @param baseCooldownMs the escalation window
     */
    void afterWrite(long now, long baseCooldownMs) {
        if (table.stored() <= sweepAbove || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            table.removeAll(e -> LockoutPolicy.isStale(e, now, baseCooldownMs), now);
            sweepAbove = Math.max(THRESHOLD, table.stored() * 2);
        } finally {
            sweeping.set(false);
        }
    }
}
