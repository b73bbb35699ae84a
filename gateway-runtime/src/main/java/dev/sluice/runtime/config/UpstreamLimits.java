package dev.sluice.runtime.config;

/**
 * Bounds on what an upstream can make Sluice hold in memory (issue 19, SEC-6): past each, the
 * attempt fails as the upstream's protocol error and fails over; never an OutOfMemoryError.
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
 */
public record UpstreamLimits(long maxAnswerBytes, int maxEventBytes, long answerBufferBytes, long maxStreamBytes) {

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
    /** The defaults. */
    public static final UpstreamLimits DEFAULTS = new UpstreamLimits(DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES,
            DEFAULT_ANSWER_BUFFER_BYTES, DEFAULT_MAX_STREAM_BYTES);

    private static final long KIB = 1024;

    /**
     * Bounds with the default {@code upstream.maxStreamBytes} (or {@code maxEventBytes}, when larger).
     *
     * @param maxAnswerBytes {@code upstream.maxAnswerBytes}
     * @param maxEventBytes {@code upstream.maxEventBytes}
     * @param answerBufferBytes {@code upstream.answerBufferBytes}
     */
    public UpstreamLimits(long maxAnswerBytes, int maxEventBytes, long answerBufferBytes) {
        this(maxAnswerBytes, maxEventBytes, answerBufferBytes, Math.max(DEFAULT_MAX_STREAM_BYTES, maxEventBytes));
    }

    /** Validates, naming the setting. */
    public UpstreamLimits {
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
