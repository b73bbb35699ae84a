package dev.sluice.runtime.routing;

import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.ConnectionGates;
import dev.sluice.runtime.resilience.Verdict;
import dev.sluice.runtime.store.Connection;
import java.util.List;

/**
 * How a request's dispatch ended.
 *
 * @param <T> the success value
 */
public sealed interface DispatchResult<T> {

    /**
     * A connection served it.
     *
     * @param value the value
     * @param connection the connection that served
     * @param finished to run once the answer has been written (a stream: to its end): returns the
     *        connection's concurrency permit (§12); idempotent
     * @param <T> the value type
     */
    record Served<T>(T value, Connection connection, Runnable finished) implements DispatchResult<T> {
        /** No null {@code finished}. */
        public Served {
            finished = finished == null ? () -> { } : finished;
        }

        /**
         * Served with nothing to return afterwards.
         *
         * @param value the value
         * @param connection the connection that served
         */
        public Served(T value, Connection connection) {
            this(value, connection, null);
        }
    }

    /**
     * The local admission in front of the connections refused it (SPEC §12, §14): a queue was full,
     * a wait ran out, or the client left while waiting. Nothing was sent upstream for it.
     *
     * @param refusal why (the error code)
     * @param retryAfterMs when trying again may help, ms (0: unknown)
     * @param connection the connection whose gate refused last
     * @param <T> the value type
     */
    record Throttled<T>(ConnectionGates.Refusal refusal, long retryAfterMs, Connection connection) implements DispatchResult<T> {
    }

    /**
     * Nothing to run and no timer involved (SPEC CO-5 {@code no_executable_targets}): the
     * provider has no enabled connection the caller may use, or every one is terminal.
     *
     * @param excluded connections held back without a timer (terminal states)
     * @param <T> the value type
     */
    record NoConnection<T>(List<ConnectionSelector.Excluded> excluded) implements DispatchResult<T> {
        /** Copies. */
        public NoConnection {
            excluded = List.copyOf(excluded);
        }
    }

    /**
     * Every eligible connection is held back, at least one by a resilience timer (CO-5).
     *
     * @param retryAfterMs ms until the first timer ends
     * @param excluded every held-back connection and the mechanism that held it
     * @param <T> the value type
     */
    record CoolingDown<T>(long retryAfterMs, List<ConnectionSelector.Excluded> excluded) implements DispatchResult<T> {
        /** Copies. */
        public CoolingDown {
            excluded = List.copyOf(excluded);
        }
    }

    /**
     * Every attempt failed, or one failed with a verdict that forbids fallback.
     *
     * @param failure the last failure (after status restatement)
     * @param verdict its verdict
     * @param connection the connection of the last attempt
     * @param attempts attempts made
     * @param clientRetryAfterMs the {@code Retry-After} a status restatement tells the client
     *     (RS-3), or null to use the verdict's hint
     * @param clientCode the error code the client gets instead of the upstream's or the verdict's
     *        (a local bound that stopped the attempt: {@code RATE_LIMIT_EXECUTION_TIMEOUT}), or null
     * @param <T> the value type
     */
    record Failed<T>(UpstreamFailure failure, Verdict verdict, Connection connection, int attempts, Long clientRetryAfterMs,
            String clientCode) implements DispatchResult<T> {

        /**
         * A failure whose error code comes from the upstream or the verdict.
         *
         * @param failure the last failure
         * @param verdict its verdict
         * @param connection the connection that failed last
         * @param attempts attempts made
         * @param clientRetryAfterMs the client's Retry-After, or null
         */
        public Failed(UpstreamFailure failure, Verdict verdict, Connection connection, int attempts, Long clientRetryAfterMs) {
            this(failure, verdict, connection, attempts, clientRetryAfterMs, null);
        }
    }
}
