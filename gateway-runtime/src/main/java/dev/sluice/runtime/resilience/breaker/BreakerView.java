package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.BreakerKey;

/**
 * What a breaker looks like at one instant, after lazy recovery (SPEC CB-6, AD-2).
 *
 * @param key the breaker
 * @param state the current state
 * @param failureCount counted failures (CB-3, deduplicated)
 * @param lastFailureAt epoch ms of the last counted failure, or null
 * @param retryAfterMs ms until an {@code OPEN} breaker lets a probe through; 0 in other states
 * @param openCycles consecutive open cycles (0 on the first open; +1 per failed probe)
 * @param lastFailureKind the last counted failure's kind (a {@code FailureReason} wire name), or null
 */
public record BreakerView(BreakerKey key, BreakerState state, int failureCount, Long lastFailureAt,
        long retryAfterMs, int openCycles, String lastFailureKind) {

    /** Validates. */
    public BreakerView {
        requireNonNull(key, "key is null");
        requireNonNull(state, "state is null");
    }
}
