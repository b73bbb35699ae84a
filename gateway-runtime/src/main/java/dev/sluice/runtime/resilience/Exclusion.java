package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import java.util.Locale;

/**
 * Why a connection may not serve a model right now (SPEC CO-5): which mechanism held it back and
 * for how long.
 *
 * @param reason the mechanism
 * @param remainingMs ms until it may serve again (0 when no timer is involved)
 * @param cause the failure that set the timer (a connection's last error, a lockout's reason), or
 *     null when unknown or not a failure of that connection (breaker, window gate)
 */
public record Exclusion(Reason reason, long remainingMs, FailureReason cause) {

    /** Validates. */
    public Exclusion {
        requireNonNull(reason, "reason is null");
    }

    /**
     * An exclusion without a known cause.
     *
     * @param reason the mechanism
     * @param remainingMs ms until it may serve again
     */
    public Exclusion(Reason reason, long remainingMs) {
        this(reason, remainingMs, null);
    }

    /** The mechanisms that hold a connection back. */
    public enum Reason {
        /** A model lockout on that connection (§11). */
        MODEL_LOCKOUT(true),
        /** The provider circuit breaker is open, or its half-open probe is in flight (§6). */
        CIRCUIT_OPEN(true),
        /** The provider cooldown window gate (§7). */
        PROVIDER_COOLDOWN(true),
        /** The connection is cooling down (§8). */
        UNAVAILABLE(true),
        /** The connection is in a terminal state (CC-6): no timer, an operator must act. */
        TERMINAL(false),
        /** Another owner's exclusive session lease holds the connection (SPEC SL-3): it serves only that owner. */
        LEASED(false);

        private final boolean timer;

        Reason(boolean timer) {
            this.timer = timer;
        }

        /** @return whether the exclusion ends by itself when a timer runs out */
        public boolean timer() {
            return timer;
        }

        /** @return the wire name, e.g. {@code model_lockout} */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
