package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;

/**
 * Why one attempt failed: the upstream said so ({@link Upstream}), or one of the gateway's own
 * timers stopped it ({@link GatewayTimer}). The second kind is the gateway's decision, not
 * evidence about the upstream, so it is request-scoped by construction (BO-7): it never counts
 * for the provider breaker, the provider cooldown window, a connection cooldown or a model lockout.
 */
public sealed interface AttemptFailure {

    /**
     * A one-line description safe to show a client.
     *
     * @return the description
     */
    String describe();

    /**
     * The error code the client gets, or null to use the upstream's or the verdict's.
     *
     * @return the code, or null
     */
    String clientCode();

    /**
     * The upstream answered with an error status or never answered properly.
     *
     * @param failure what the executor reported (after status restatement, once restated)
     */
    record Upstream(UpstreamFailure failure) implements AttemptFailure {
        /** Validates. */
        public Upstream {
            requireNonNull(failure, "failure is null");
        }

        @Override
        public String describe() {
            return failure.describe();
        }

        @Override
        public String clientCode() {
            return failure instanceof UpstreamError e ? e.errorCode() : null;
        }
    }

    /**
     * A timer of the gateway's own ended the attempt.
     *
     * @param timer which timer
     * @param boundMs the bound it enforced, ms
     */
    record GatewayTimer(Timer timer, long boundMs) implements AttemptFailure {
        /** Validates. */
        public GatewayTimer {
            requireNonNull(timer, "timer is null");
        }

        @Override
        public String describe() {
            return timer.describe(boundMs);
        }

        @Override
        public String clientCode() {
            return timer.code();
        }
    }

    /** The gateway's own timers (SPEC RQ-2; the stream timers of §15 join them). */
    enum Timer {
        /** RQ-2: {@code requestQueue.executionMaxWaitMs} bounds one attempt's execution. */
        EXECUTION_BOUND("RATE_LIMIT_EXECUTION_TIMEOUT", 504) {
            @Override
            String describe(long boundMs) {
                return "the attempt ran longer than requestQueue.executionMaxWaitMs (" + boundMs + " ms) and was stopped";
            }
        };

        private final String code;
        private final int status;

        Timer(String code, int status) {
            this.code = code;
            this.status = status;
        }

        /** @return the error code the client gets */
        public String code() {
            return code;
        }

        /** @return the HTTP status the client gets */
        public int status() {
            return status;
        }

        abstract String describe(long boundMs);
    }
}
