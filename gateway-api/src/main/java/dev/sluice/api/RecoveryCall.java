package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.UpstreamFailure;
import java.time.Duration;

/**
 * An upstream failure the runtime offers the executor before its generic failure path (see
 * {@link ProviderExecutor#recover(RecoveryCall)}): the attempt's connection, what went wrong, and
 * how much of the attempt's recovery has been spent.
 *
 * @param target the connection the attempt was sent to
 * @param failure what the attempt produced (an {@link dev.sluice.api.upstream.UpstreamError} for
 *     an answer with an error status, with its headers and body)
 * @param retries how many times this attempt was already sent again on this connection after a
 *     recovery decision
 * @param waited how long this attempt already waited for recovery
 * @param budget how much longer it may still wait: the request's upstream start timeout less a
 *     margin, less what it waited
 */
@Experimental("recovery hooks are new in this release; their fields may grow")
public record RecoveryCall(UpstreamTarget target, UpstreamFailure failure, int retries, Duration waited, Duration budget) {

    /** Validates. */
    public RecoveryCall {
        requireNonNull(target, "target is null");
        requireNonNull(failure, "failure is null");
        requireNonNull(waited, "waited is null");
        requireNonNull(budget, "budget is null");
        if (retries < 0) {
            throw new IllegalArgumentException("retries < 0");
        }
    }
}
