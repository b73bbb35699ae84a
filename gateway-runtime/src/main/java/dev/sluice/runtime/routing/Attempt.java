package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.classify.AttemptFailure;

/** What one attempt produced: a reply to serve, or a failure for the failure path. */
sealed interface Attempt {

    /**
     * The connection answered.
     *
     * @param reply what it served
     * @param head the upstream's response head (rate-limit headers feed OF-4 and RQ-10), or null
     */
    record Ok(Reply reply, ResponseHead head) implements Attempt {
        public Ok {
            requireNonNull(reply, "reply is null");
        }
    }

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
