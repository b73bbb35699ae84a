package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * What an executor decides about an upstream failure before the runtime's generic failure path
 * ({@link ProviderExecutor#recover(RecoveryCall)}). A retry is sent on the same connection, with
 * the same request: an executor that wants it sent differently (another header) keeps that in its
 * own per-connection state and applies it when the runtime calls it again.
 */
@Experimental("recovery hooks are new in this release; their decisions may grow")
public sealed interface Recovery {

    /** The failure goes on to the runtime's generic failure path (classification, cooldowns, failover). */
    record HandOn() implements Recovery {
    }

    /** Send the attempt again at once, on the same connection; the failure is not counted. */
    record RetryNow() implements Recovery {
    }

    /**
     * Wait, then send the attempt again on the same connection; the failure is not counted. The
     * runtime waits at most the call's {@link RecoveryCall#budget()}, and stops waiting (handing
     * the failure on) when the client leaves.
     *
     * @param delay how long to wait
     */
    record RetryAfter(Duration delay) implements Recovery {
        /** Validates. */
        public RetryAfter {
            requireNonNull(delay, "delay is null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("negative wait");
            }
        }
    }

    /** @return the hand-on decision */
    static Recovery handOn() {
        return new HandOn();
    }

    /** @return the retry-now decision */
    static Recovery retryNow() {
        return new RetryNow();
    }

    /**
     * @param delay how long to wait first
     * @return the wait-then-retry decision
     */
    static Recovery retryAfter(Duration delay) {
        return new RetryAfter(delay);
    }
}
