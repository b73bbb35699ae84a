package dev.sluice.runtime.resilience.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.classify.Verdict;

/**
 * What the failure path made of a failed attempt.
 *
 * @param failure the failure as the rest of the gateway and the client see it (restated, §16.1)
 * @param verdict its verdict (SPEC §5)
 * @param clientRetryAfterMs the {@code Retry-After} a status restatement tells the client (RS-3),
 *     or null to use the verdict's hint
 * @param tryNext whether the request goes on to the next connection
 */
public record FailureDecision(AttemptFailure failure, Verdict verdict, Long clientRetryAfterMs, boolean tryNext) {

    /** Validates. */
    public FailureDecision {
        requireNonNull(failure, "failure is null");
        requireNonNull(verdict, "verdict is null");
    }
}
