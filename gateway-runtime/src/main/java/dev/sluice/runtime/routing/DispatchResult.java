package dev.sluice.runtime.routing;

import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.Verdict;
import dev.sluice.runtime.store.Connection;

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
     * @param <T> the value type
     */
    record Served<T>(T value, Connection connection) implements DispatchResult<T> {
    }

    /**
     * The provider has no enabled connection the caller may use.
     *
     * @param <T> the value type
     */
    record NoConnection<T>() implements DispatchResult<T> {
    }

    /**
     * Every eligible connection is held back by a resilience timer.
     *
     * @param retryAfterMs ms until the first one is usable again
     * @param <T> the value type
     */
    record CoolingDown<T>(long retryAfterMs) implements DispatchResult<T> {
    }

    /**
     * Every attempt failed, or one failed with a verdict that forbids fallback.
     *
     * @param failure the last failure
     * @param verdict its verdict
     * @param connection the connection of the last attempt
     * @param attempts attempts made
     * @param <T> the value type
     */
    record Failed<T>(UpstreamFailure failure, Verdict verdict, Connection connection, int attempts) implements DispatchResult<T> {
    }
}
