package dev.sluice.runtime.stream;

/**
 * The stream watchdogs' settings, read per attempt ({@code streamRecovery}, SPEC §15).
 *
 * @param readinessTimeoutMs how long an attempt may take to its first useful event (ST-0)
 * @param idleTimeoutMs how long a committed stream may go without model output (ST-1); 0 = off
 * @param keepAliveIntervalMs how often a quiet committed stream gets a keep-alive; 0 = off
 * @param attemptDeadlineMs the hard bound of one attempt, its stream included
 * @param earlyEofRetries re-attempts on the same connection after an EOF before any useful event
 * @param throughput the slow-stream watchdog (ST-2, ST-3)
 */
public record StreamRules(long readinessTimeoutMs, long idleTimeoutMs, long keepAliveIntervalMs, long attemptDeadlineMs,
        int earlyEofRetries, Throughput throughput) {

    /** The defaults of {@code streamRecovery} (see docs/resilience.md for why). */
    public static final StreamRules DEFAULTS = new StreamRules(80_000, 180_000, 15_000, 1_800_000, 1, Throughput.OFF);

    /**
     * The throughput watchdog's settings.
     *
     * @param enabled whether it may abort at all
     * @param windowMs the sliding window the rate is measured over
     * @param warmupMs how long after the first output nothing is judged
     * @param minBytesPerSecond the least useful output rate, UTF-8 bytes of text per second
     * @param minMeasurableBytes a stream that produced less than this in all is never judged
     */
    public record Throughput(boolean enabled, long windowMs, long warmupMs, long minBytesPerSecond, long minMeasurableBytes) {
        /** The default: off. */
        public static final Throughput OFF = new Throughput(false, 60_000, 30_000, 8, 256);
    }
}
