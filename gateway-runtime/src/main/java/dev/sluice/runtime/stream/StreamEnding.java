package dev.sluice.runtime.stream;

/** How a stream that reached the client ended; every path ends in exactly one of these. */
public enum StreamEnding {
    /** The upstream finished the stream. */
    COMPLETED(null),
    /** The client went away; the upstream request was ended. */
    CLIENT_GONE(null),
    /** The upstream failed mid-stream (reset, protocol error, an error event). */
    UPSTREAM_FAILED("upstream_stream_error"),
    /** No model output for {@code streamRecovery.idleTimeoutMs} (ST-1). */
    STALLED("STREAM_STALL_TIMEOUT"),
    /** Useful output below {@code streamRecovery.throughputWatchdog.minBytesPerSecond} (ST-2). */
    TOO_SLOW("STREAM_THROUGHPUT_TOO_LOW"),
    /** The attempt ran past {@code streamRecovery.attemptDeadlineMs}. */
    DEADLINE("STREAM_ATTEMPT_DEADLINE");

    private final String code;

    StreamEnding(String code) {
        this.code = code;
    }

    /** @return the error code the client is told in-band, or null when the stream did not end in an error */
    public String code() {
        return code;
    }

    /** @return whether a watchdog of the gateway's own ended the stream (BO-7: no evidence about the upstream) */
    public boolean byWatchdog() {
        return this == STALLED || this == TOO_SLOW || this == DEADLINE;
    }
}
