package dev.sluice.runtime.resilience.lockout;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;

/**
 * One model-scoped failure as {@link ModelLockouts#recordFailure(LockoutFailure)} records it: which
 * connection failed on which model, why, and how long the upstream or the failure itself asks the
 * lock to last. Built with {@link #builder}, since most failures carry only a few of the optional
 * parts.
 *
 * <p>The record does not validate: with model lockout off (the default) a failure is dropped before
 * anything looks at it, so a null here must cost nothing then. {@link ModelLockouts} checks
 * {@code provider}, {@code connectionId}, {@code model} and {@code reason} when it records one.
 *
 * @param provider the provider id
 * @param connectionId the connection id
 * @param model the requested upstream model
 * @param family the model's quota family declared by the provider, or null
 * @param scope the lock scope (see {@link ModelLockouts#resolveScope}); null resolves by status
 * @param reason the failure reason
 * @param status the status that counts against {@code modelLockout.errorCodes}
 * @param hintMs the upstream retry hint in ms, or null
 * @param hintAuthoritative whether the hint may exceed {@code maxCooldownMs}
 * @param declaredCooldownMs a cooldown the failure declares, or null
 */
public record LockoutFailure(String provider, String connectionId, String model, String family, LockScope scope,
        FailureReason reason, int status, Long hintMs, boolean hintAuthoritative, Long declaredCooldownMs) {

    /**
     * Starts a failure of one model on one connection; no family, scope resolved by status, no
     * hint and no declared cooldown until set.
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @param model the requested upstream model
     * @return the builder
     */
    public static Builder builder(String provider, String connectionId, String model) {
        return new Builder(provider, connectionId, model);
    }

    /** Builds a {@link LockoutFailure}; not thread-safe, one per failure. */
    public static final class Builder {
        private final String provider;
        private final String connectionId;
        private final String model;
        private String family;
        private LockScope scope;
        private FailureReason reason;
        private int status;
        private Long hintMs;
        private boolean hintAuthoritative;
        private Long declaredCooldownMs;

        private Builder(String provider, String connectionId, String model) {
            this.provider = provider;
            this.connectionId = connectionId;
            this.model = model;
        }

        /**
         * @param family the model's quota family, or null
         * @return this builder
         */
        public Builder family(String family) {
            this.family = family;
            return this;
        }

        /**
         * @param scope {@link LockScope#MODEL} or {@link LockScope#EXACT}; null (or another scope)
         *     resolves by status
         * @return this builder
         */
        public Builder scope(LockScope scope) {
            this.scope = scope;
            return this;
        }

        /**
         * @param reason the failure reason
         * @param status the status that counts against {@code errorCodes}
         * @return this builder
         */
        public Builder failure(FailureReason reason, int status) {
            this.reason = reason;
            this.status = status;
            return this;
        }

        /**
         * @param ms the upstream retry hint, or null
         * @param authoritative whether it may exceed {@code maxCooldownMs}
         * @return this builder
         */
        public Builder hint(Long ms, boolean authoritative) {
            this.hintMs = ms;
            this.hintAuthoritative = authoritative;
            return this;
        }

        /**
         * @param ms a cooldown the failure declares, or null
         * @return this builder
         */
        public Builder declaredCooldownMs(Long ms) {
            this.declaredCooldownMs = ms;
            return this;
        }

        /** @return the failure */
        public LockoutFailure build() {
            return new LockoutFailure(provider, connectionId, model, family, scope, reason, status, hintMs, hintAuthoritative,
                    declaredCooldownMs);
        }
    }
}
