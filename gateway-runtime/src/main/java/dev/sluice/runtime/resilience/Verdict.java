package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;

/**
 * What a failed attempt means (SPEC §5).
 *
 * @param reason the failure reason
 * @param status the status the client would see for this failure (upstream status; 502 for a
 *     transport failure, 504 for a timeout)
 * @param fallback whether to try the next connection
 * @param retryAfterMs the upstream's retry hint in ms, or null
 */
public record Verdict(FailureReason reason, int status, boolean fallback, Long retryAfterMs) {

    /** Validates. */
    public Verdict {
        requireNonNull(reason, "reason is null");
    }
}
