package dev.sluice.runtime.resilience.breaker;

import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;

/**
 * How long a breaker waits in each state, computed from its class's profile (SPEC CB-1, CB-4,
 * CB-5). Pure arithmetic on the profile: the breaker has no timer (CB-6) and compares these
 * periods with the injected clock on every call, so a live settings change applies at once.
 * Public for the shared decorator ({@code breaker.shared}), which announces the same periods.
 */
public final class BreakerPeriods {

    /**
     * Least time a claimed half-open probe keeps its claim when it never reports (CB-1): longer
     * than the slowest non-streaming attempt (the upstream headers timeout is 110 s by default),
     * so a slow probe is not joined by a second one. The lease is the larger of this and the
     * profile's {@code resetTimeoutMs} ({@link #probeLeaseMs}).
     */
    public static final long PROBE_LEASE_MS = 300_000;

    private BreakerPeriods() {
    }

    /**
     * {@code cooldownByKind[kind]} when the profile has one, else {@code resetTimeoutMs} while
     * {@code openCycles ≤ backoffEscalationCount}, then {@code min(resetTimeoutMs ×
     * 2^(openCycles − backoffEscalationCount), resetTimeoutMs × maxBackoffMultiplier)}.
     *
     * @param p the profile
     * @param openCycles the open cycle this period is for (1: the first)
     * @param kind the failure kind, a {@code FailureReason} wire name, or null
     * @return the open period, ms
     */
    public static long openPeriodMs(BreakerProfile p, int openCycles, String kind) {
        Long byKind = kind == null ? null : p.cooldownByKind().get(kind);
        if (byKind != null) {
            return byKind;
        }
        long base = p.resetTimeoutMs();
        if (openCycles <= p.backoffEscalationCount()) {
            return base;
        }
        long cap = saturatingMultiply(base, Math.max(1, p.maxBackoffMultiplier()));
        int exponent = openCycles - p.backoffEscalationCount();
        return exponent >= 62 ? cap : Math.min(saturatingMultiply(base, 1L << exponent), cap);
    }

    /**
     * The longest open period for the last failure kind, i.e. {@code (cooldownByKind[kind] else
     * resetTimeoutMs) × maxBackoffMultiplier}, at least one period: a breaker that stayed quiet
     * that long would have been through a whole open cycle had it opened.
     */
    static long degradedExpiryMs(BreakerProfile p, String kind) {
        Long byKind = kind == null ? null : p.cooldownByKind().get(kind);
        long base = byKind != null ? byKind : p.resetTimeoutMs();
        return saturatingMultiply(base, Math.max(1, p.maxBackoffMultiplier()));
    }

    /**
     * How long a claimed half-open probe holds its claim: the larger of {@link #PROBE_LEASE_MS} and
     * {@code resetTimeoutMs}.
     *
     * @param p the profile
     * @return the lease, ms
     */
    public static long probeLeaseMs(BreakerProfile p) {
        return Math.max(PROBE_LEASE_MS, p.resetTimeoutMs());
    }

    /** A configured multiplier must not wrap a period around to a negative (instantly elapsed) one. */
    private static long saturatingMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi == 0 && lo >= 0) || (hi == -1 && lo < 0) ? lo : Long.MAX_VALUE;
    }
}
