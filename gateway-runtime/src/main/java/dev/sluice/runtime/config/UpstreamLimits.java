package dev.sluice.runtime.config;

/**
 * Bounds on what an upstream can make Sluice hold in memory (issue 19, SEC-6): past each, the
 * attempt fails as the upstream's protocol error and fails over; never an OutOfMemoryError. And how
 * long a whole (not streamed) answer may hold an attempt (issue 28): past either time bound the
 * attempt fails as an upstream timeout and fails over.
 *
 * @param maxAnswerBytes {@code upstream.maxAnswerBytes}: the most bytes of one whole (not streamed)
 *     answer; 1 KiB – 1 GiB, default 16 MiB
 * @param maxEventBytes {@code upstream.maxEventBytes}: the most bytes of one server-sent event (or
 *     line) of a stream; 1 KiB – 256 MiB, default 4 MiB
 * @param answerBufferBytes {@code upstream.answerBufferBytes}: the most bytes of whole answers being
 *     read at the same time, over all requests (and large stream events in flight, issue 29); at least
 *     {@code maxAnswerBytes}, default 64 MiB
 * @param maxStreamBytes {@code upstream.maxStreamBytes}: the most bytes of one streamed answer; at
 *     least {@code maxEventBytes}, at most 64 GiB, default 128 MiB (issue 29)
 * @param bodyIdleTimeoutMs {@code upstream.bodyIdleTimeoutMs}: once a whole answer's headers came,
 *     the longest time without a byte of its body; 1 000 – 3 600 000, default 30 000
 * @param answerDeadlineMs {@code upstream.answerDeadlineMs}: the longest one non-streamed attempt may
 *     take from its request to the last byte of its answer (headers included); 1 000 – 3 600 000,
 *     default 180 000
 */
public record UpstreamLimits(long maxAnswerBytes, int maxEventBytes, long answerBufferBytes, long maxStreamBytes,
        long bodyIdleTimeoutMs, long answerDeadlineMs) {

    /** Default bound on one whole answer: 16 MiB. */
    public static final long DEFAULT_MAX_ANSWER_BYTES = 16L * 1024 * 1024;
    /** Default bound on one stream event: 4 MiB. */
    public static final int DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;
    /** Default bound on large whole answers being handled at once: 64 MiB (the default heap is 192 MiB). */
    public static final long DEFAULT_ANSWER_BUFFER_BYTES = 64L * 1024 * 1024;
    /**
     * Default bound on one streamed answer: 128 MiB. The longest honest answer (128 000 output tokens
     * in the wordiest dialect, Responses SSE at ~300 bytes an event) is about 40 MiB.
     */
    public static final long DEFAULT_MAX_STREAM_BYTES = 128L * 1024 * 1024;
    /**
     * Default longest silence inside a whole answer's body: 30 s. An upstream that has sent its
     * headers has its answer ready (non-streamed answers are written when the model is done), so a
     * pause that long is an upstream that went silent, not a model thinking.
     */
    public static final long DEFAULT_BODY_IDLE_TIMEOUT_MS = 30_000;
    /**
     * Default bound on one non-streamed attempt, request to last byte: 180 s. It stays above the
     * default {@code upstream.headersTimeoutMs} (110 s), so a slow non-streaming model still gets all of
     * that to start answering, and leaves 70 s for the body — at the default
     * {@code upstream.maxAnswerBytes} (16 MiB) that asks 240 KB/s of the upstream; ordinary answers of a
     * few KiB take milliseconds. It ends an upstream that trickles a byte now and then, which no
     * silence bound catches.
     */
    public static final long DEFAULT_ANSWER_DEADLINE_MS = 180_000;
    /** The range of both time bounds, ms. */
    static final long MIN_TIME_BOUND_MS = 1_000;
    static final long MAX_TIME_BOUND_MS = 3_600_000;
    /** The defaults. */
    public static final UpstreamLimits DEFAULTS = new UpstreamLimits(DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES,
            DEFAULT_ANSWER_BUFFER_BYTES, DEFAULT_MAX_STREAM_BYTES, DEFAULT_BODY_IDLE_TIMEOUT_MS, DEFAULT_ANSWER_DEADLINE_MS);

    private static final long KIB = 1024;

    /**
     * These bounds with other time bounds for whole answers.
     *
     * @param bodyIdleMs {@code upstream.bodyIdleTimeoutMs}
     * @param deadlineMs {@code upstream.answerDeadlineMs}
     * @return the bounds
     */
    public UpstreamLimits withAnswerTimes(long bodyIdleMs, long deadlineMs) {
        return new UpstreamLimits(maxAnswerBytes, maxEventBytes, answerBufferBytes, maxStreamBytes, bodyIdleMs, deadlineMs);
    }

    /** Validates, naming the setting. */
    public UpstreamLimits {
        if (bodyIdleTimeoutMs < MIN_TIME_BOUND_MS || bodyIdleTimeoutMs > MAX_TIME_BOUND_MS) {
            throw new IllegalArgumentException("upstream.bodyIdleTimeoutMs must be 1000–3600000 ms, got " + bodyIdleTimeoutMs);
        }
        if (answerDeadlineMs < MIN_TIME_BOUND_MS || answerDeadlineMs > MAX_TIME_BOUND_MS) {
            throw new IllegalArgumentException("upstream.answerDeadlineMs must be 1000–3600000 ms, got " + answerDeadlineMs);
        }
        if (maxAnswerBytes < KIB || maxAnswerBytes > 1024 * 1024 * KIB) {
            throw new IllegalArgumentException("upstream.maxAnswerBytes must be 1024–1073741824 (1 KiB – 1 GiB), got " + maxAnswerBytes);
        }
        if (maxEventBytes < KIB || maxEventBytes > 256 * 1024 * KIB) {
            throw new IllegalArgumentException("upstream.maxEventBytes must be 1024–268435456 (1 KiB – 256 MiB), got " + maxEventBytes);
        }
        if (maxStreamBytes < maxEventBytes || maxStreamBytes > 64L * 1024 * 1024 * KIB) {
            throw new IllegalArgumentException("upstream.maxStreamBytes must be at least upstream.maxEventBytes (" + maxEventBytes
                    + ") and at most 68719476736 (64 GiB), got " + maxStreamBytes);
        }
        if (answerBufferBytes < maxAnswerBytes) {
            throw new IllegalArgumentException("upstream.answerBufferBytes (" + answerBufferBytes
                    + ") must be at least upstream.maxAnswerBytes (" + maxAnswerBytes + ")");
        }
    }
}
