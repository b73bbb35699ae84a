package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.classify.AttemptFailure;

/**
 * What one attempt produced, in the gateway's terms, whichever executor call made it (chat,
 * passthrough, embeddings): the {@link Reply} the connection served (with its response head), or a
 * failure for the failure path — the executor's, or the gateway's own (a timer, the client gone).
 * The dispatcher settles it into the request's {@link Outcome}; a reply travels on unchanged.
 */
sealed interface Attempt permits Reply, Attempt.Failed {

    /**
     * The attempt failed.
     *
     * @param failure what went wrong
     */
    record Failed(AttemptFailure failure) implements Attempt {
        public Failed {
            requireNonNull(failure, "failure is null");
        }
    }

    /** An upstream failure as an attempt's. */
    static Failed failed(UpstreamFailure failure) {
        return new Failed(new AttemptFailure.Upstream(failure));
    }

    /** An answer the gateway could not use (an unreadable body, an executor's bug): the gateway's own 502. */
    static Failed protocol(String message) {
        return failed(new TransportError(TransportErrorKind.PROTOCOL, message));
    }
}
