package dev.sluice.api.upstream;

import static java.util.Objects.requireNonNull;

/**
 * A retry delay an executor read from a provider's structured error body.
 *
 * @param delayMs how long to wait, in ms (≥ 0)
 * @param source where it came from: {@link #GOOGLE_RPC_RETRY_INFO} or {@link #BODY_TEXT}; the
 *     resilience layer treats structured sources differently from guesses (SPEC RQ-4)
 */
public record RetryHint(long delayMs, String source) {

    /** Google {@code google.rpc.RetryInfo.retryDelay} in an error's {@code details}. */
    public static final String GOOGLE_RPC_RETRY_INFO = "google_rpc_retry_info";
    /** A delay parsed from free error text ("retry after 17s"). */
    public static final String BODY_TEXT = "body_text";

    /** Validates the fields. */
    public RetryHint {
        requireNonNull(source, "source is null");
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs is negative");
        }
    }
}
