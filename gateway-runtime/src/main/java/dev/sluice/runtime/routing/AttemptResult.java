package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamFailure;

/**
 * What one attempt produced, for the dispatcher.
 *
 * @param <T> the success value
 */
public sealed interface AttemptResult<T> {

    /**
     * Success.
     *
     * @param value the value
     * @param status the upstream status
     * @param head the upstream's response head (rate-limit headers feed OF-4), or null
     * @param <T> the value type
     */
    record Ok<T>(T value, int status, ResponseHead head) implements AttemptResult<T> {
        /** Validates. */
        public Ok {
            requireNonNull(value, "value is null");
        }

        /**
         * Success without a head.
         *
         * @param value the value
         * @param status the upstream status
         */
        public Ok(T value, int status) {
            this(value, status, null);
        }
    }

    /**
     * Failure.
     *
     * @param failure what went wrong
     * @param <T> the value type
     */
    record Failed<T>(UpstreamFailure failure) implements AttemptResult<T> {
        /** Validates. */
        public Failed {
            requireNonNull(failure, "failure is null");
        }
    }
}
