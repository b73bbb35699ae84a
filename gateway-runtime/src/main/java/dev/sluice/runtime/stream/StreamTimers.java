package dev.sluice.runtime.stream;

/**
 * The timers of a committed stream, as pure decisions on a nanosecond clock the caller passes in
 * (SPEC ST-0 keep-alive and hard deadline, ST-1 stall, ST-2/ST-3 throughput). Not thread-safe: one
 * relay owns it.
 */
final class StreamTimers {

    /** What is due. */
    enum Due {
        /** Nothing: wait on. */
        NOTHING,
        /** Write a keep-alive to the client. */
        KEEP_ALIVE,
        /** No model output for the idle budget (ST-1). */
        STALL,
        /** Useful output below the minimum rate (ST-2). */
        TOO_SLOW,
        /** The attempt's hard deadline passed. */
        DEADLINE
    }

    private final StreamRules rules;
    private final long deadlineNanos;
    private final ThroughputMeter throughput;
    private long lastActivityNanos;
    private long lastWriteNanos;

    /**
     * Starts the timers at the commit.
     *
     * @param rules the settings
     * @param attemptStartedNanos when the attempt started (the hard deadline counts from there)
     * @param nowNanos now
     */
    StreamTimers(StreamRules rules, long attemptStartedNanos, long nowNanos) {
        this.rules = rules;
        this.deadlineNanos = attemptStartedNanos + ms(rules.attemptDeadlineMs());
        this.throughput = rules.throughput().enabled() ? new ThroughputMeter(rules.throughput(), nowNanos) : null;
        this.lastActivityNanos = nowNanos;
        this.lastWriteNanos = nowNanos;
    }

    /** A frame arrived from the upstream. */
    void onFrame(Signal signal, long nowNanos) {
        if (signal.activity()) {
            lastActivityNanos = nowNanos;
        }
        if (throughput != null) {
            throughput.onFrame(signal, nowNanos);
        }
    }

    /** Something was written to the client. */
    void onWrite(long nowNanos) {
        lastWriteNanos = nowNanos;
    }

    /** @return the longest the relay may wait now before something may be due, ns */
    long waitNanos(long nowNanos) {
        long next = deadlineNanos;
        if (rules.idleTimeoutMs() > 0) {
            next = Math.min(next, lastActivityNanos + ms(rules.idleTimeoutMs()));
        }
        if (rules.keepAliveIntervalMs() > 0) {
            next = Math.min(next, lastWriteNanos + ms(rules.keepAliveIntervalMs()));
        }
        if (throughput != null) {
            next = Math.min(next, throughput.nextCheckNanos(nowNanos));
        }
        return Math.max(0, next - nowNanos);
    }

    /** @return what is due now, the most serious first */
    Due due(long nowNanos) {
        if (nowNanos - deadlineNanos >= 0) {
            return Due.DEADLINE;
        }
        if (rules.idleTimeoutMs() > 0 && nowNanos - lastActivityNanos >= ms(rules.idleTimeoutMs())) {
            return Due.STALL;
        }
        if (throughput != null && throughput.tooSlow(nowNanos)) {
            return Due.TOO_SLOW;
        }
        if (rules.keepAliveIntervalMs() > 0 && nowNanos - lastWriteNanos >= ms(rules.keepAliveIntervalMs())) {
            return Due.KEEP_ALIVE;
        }
        return Due.NOTHING;
    }

    /** @return the idle budget, ms */
    long idleTimeoutMs() {
        return rules.idleTimeoutMs();
    }

    static long ms(long ms) {
        return ms * 1_000_000L;
    }
}
