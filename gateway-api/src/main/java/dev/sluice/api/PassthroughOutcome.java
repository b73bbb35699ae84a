package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.api.upstream.UpstreamResponse;

/** What one passthrough attempt produced. */
public sealed interface PassthroughOutcome {

    /**
     * The upstream accepted the request (2xx). The runtime relays the body as it arrives (a stream
     * or a whole answer) and always closes the response.
     *
     * @param response the upstream response, body unread
     */
    record Accepted(UpstreamResponse response) implements PassthroughOutcome {
        /** Validates. */
        public Accepted {
            requireNonNull(response, "response is null");
        }
    }

    /**
     * The attempt failed.
     *
     * @param failure what went wrong
     */
    record Failed(UpstreamFailure failure) implements PassthroughOutcome {
        /** Validates. */
        public Failed {
            requireNonNull(failure, "failure is null");
        }
    }
}
