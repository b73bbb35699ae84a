package dev.sluice.runtime.resilience.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.gate.ConnectionGates;

/**
 * One failed attempt, as the failure path needs it.
 *
 * @param candidate the connection that was tried
 * @param admission what the breaker's admission gave the attempt (its probe, if any, is settled here)
 * @param requestedModel the model name the client asked for ({@code provider/model} or bare): a
 *     long {@code RetryInfo} locks it too (RQ-4)
 * @param limits the connection's admission limits for the request (queue protection, queue time)
 * @param directRoute whether the attempt left through the machine's default route (no proxy, no
 *     local address): a transport failure of a connection's own route is the connection's
 * @param failure what went wrong
 */
public record FailedAttempt(Candidate candidate, CircuitBreakers.Admission admission, String requestedModel,
        ConnectionGates.Limits limits, boolean directRoute, AttemptFailure failure) {

    /** Validates. */
    public FailedAttempt {
        requireNonNull(candidate, "candidate is null");
        requireNonNull(admission, "admission is null");
        requireNonNull(requestedModel, "requestedModel is null");
        requireNonNull(limits, "limits is null");
        requireNonNull(failure, "failure is null");
    }
}
