package dev.sluice.runtime.resilience.classify;

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
     * The upstream answered 200 and ended its stream before any useful event (SPEC ST-0): the
     * request re-attempts on the same connection ({@code streamRecovery.earlyEofRetries}), then
     * falls back.
     *
     * @param diagnostic what the upstream did, for the client's message
     */
    record EarlyEof(String diagnostic) implements AttemptFailure {
        /** The client's error code when nothing else serves. */
        public static final String CODE = "STREAM_EARLY_EOF";

        @Override
        public String describe() {
            return diagnostic;
        }

        @Override
        public String clientCode() {
            return CODE;
        }
    }

    /**
     * The client went away while the attempt waited for the upstream (BO-6): the request ends,
     * nothing is billed, and no mechanism counts it.
     */
    record ClientGone() implements AttemptFailure {
        /** The client's error code (nginx's 499). */
        public static final String CODE = "CLIENT_DISCONNECTED";

        @Override
        public String describe() {
            return "the client disconnected while the attempt waited for the upstream";
        }

        @Override
        public String clientCode() {
            return CODE;
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

    /** The gateway's own timers (SPEC RQ-2, ST-0, issue 32). */
    enum Timer {
        /** RQ-2: {@code requestQueue.executionMaxWaitMs} bounds one attempt's execution. */
        EXECUTION_BOUND("RATE_LIMIT_EXECUTION_TIMEOUT", 504) {
            @Override
            String describe(long boundMs) {
                return "the attempt ran longer than requestQueue.executionMaxWaitMs (" + boundMs + " ms) and was stopped";
            }
        },
        /** ST-0: {@code streamRecovery.readinessTimeoutMs} bounds the wait for a stream's first useful event. */
        STREAM_READINESS("STREAM_READINESS_TIMEOUT", 504) {
            @Override
            String describe(long boundMs) {
                return "the upstream stream sent no useful event within streamRecovery.readinessTimeoutMs (" + boundMs + " ms)"
                        + " of the attempt's start (the wait for its headers included)";
            }
        },
        /** Issue 32: {@code upstream.connectTimeoutMs} bounds the connect to the upstream, whatever the egress route. */
        UPSTREAM_CONNECT("UPSTREAM_CONNECT_TIMEOUT", 504) {
            @Override
            String describe(long boundMs) {
                return "the upstream did not accept the connection within upstream.connectTimeoutMs (" + boundMs + " ms)";
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
