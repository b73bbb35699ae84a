package dev.sluice.runtime.resilience.classify;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.util.Set;

/**
 * What a failed attempt means (SPEC §5): the classifier's whole answer, on which every mechanism
 * acts without re-parsing the response.
 *
 * @param reason the failure reason (FC-1)
 * @param status the status the client would see for this failure (the upstream status; 502 for a
 *     transport failure, 504 for a timeout)
 * @param fallback whether to try the next connection or target
 * @param retryAfterMs the upstream's retry hint in ms (FC-3), already capped (24 h for "retry in"
 *     forms, 30 days for announced quota resets), or null
 * @param hintSource where {@code retryAfterMs} came from, or null when there is no hint
 * @param cooldownMs a cooldown the failure itself declares (e.g. 1 h for a subscription quota
 *     text, 24 h for a weekly cap, 1 year for a deactivated account), or null when the mechanism's
 *     own formula (backoff, hint) decides
 * @param lockScope what the failure is evidence about: {@code connection} (the account),
 *     {@code model} (the model's quota family on that connection), {@code exact} (only this
 *     provider/connection/model), {@code provider}
 * @param permanent the account is unusable until an operator acts (ban, deactivation)
 * @param creditsExhausted the account is out of credits (terminal {@code credits_exhausted})
 * @param skipProviderBreaker never counts for the provider breaker (CB-3)
 * @param requestScoped the failure belongs to this request, not the upstream (BO-7: context
 *     overflow, malformed request, client abort, the gateway's own timeout): nothing is cooled,
 *     locked or counted
 * @param ruleScope the scope of a matched provider error rule (SPEC §16.2), or null
 */
public record Verdict(
        FailureReason reason,
        int status,
        boolean fallback,
        Long retryAfterMs,
        HintSource hintSource,
        Long cooldownMs,
        LockScope lockScope,
        boolean permanent,
        boolean creditsExhausted,
        boolean skipProviderBreaker,
        boolean requestScoped,
        LockScope ruleScope) {

    /** CB-3: the provider-level statuses that count for the breaker. */
    public static final Set<Integer> BREAKER_STATUSES = Set.of(408, 500, 502, 503, 504);

    /** Where a retry hint came from (FC-3). Only header and Google RetryInfo hints may exceed configured caps. */
    public enum HintSource {
        /** {@code Retry-After}, {@code x-ratelimit-reset*}, {@code anthropic-ratelimit-*-reset}. */
        HEADER,
        /** A {@code google.rpc.RetryInfo} detail's {@code retryDelay}. */
        GOOGLE_RPC_RETRY_INFO,
        /** Other JSON fields of the body ({@code retryAfter}, {@code retry_after_ms}). */
        BODY_JSON,
        /** Natural-language body text ("retry after 17s", "resets at …"). */
        BODY_TEXT;

        /** @return whether a hint of this source may exceed configured maximum cooldowns (CC-2) */
        public boolean authoritative() {
            return this == HEADER || this == GOOGLE_RPC_RETRY_INFO;
        }
    }

    /** Validates. */
    public Verdict {
        requireNonNull(reason, "reason is null");
        requireNonNull(lockScope, "lockScope is null");
        if ((retryAfterMs == null) != (hintSource == null)) {
            throw new IllegalArgumentException("retryAfterMs and hintSource go together");
        }
    }

    /**
     * A verdict with no hint, no declared cooldown and no flags.
     *
     * @param reason the reason
     * @param status the client status
     * @param fallback whether to try the next connection
     * @param lockScope the lock scope
     * @return the verdict
     */
    public static Verdict of(FailureReason reason, int status, boolean fallback, LockScope lockScope) {
        return builder(reason, status, lockScope).fallback(fallback).build();
    }

    /**
     * A builder: the verdict falls back, has no hint, no declared cooldown and no flags until told
     * otherwise.
     *
     * @param reason the reason
     * @param status the client status
     * @param lockScope what the failure is evidence about
     * @return the builder
     */
    public static Builder builder(FailureReason reason, int status, LockScope lockScope) {
        return new Builder(reason, status, lockScope);
    }

    /** @return a builder holding this verdict's values */
    public Builder toBuilder() {
        Builder b = new Builder(reason, status, lockScope);
        b.fallback = fallback;
        b.retryAfterMs = retryAfterMs;
        b.hintSource = hintSource;
        b.cooldownMs = cooldownMs;
        b.permanent = permanent;
        b.creditsExhausted = creditsExhausted;
        b.skipProviderBreaker = skipProviderBreaker;
        b.requestScoped = requestScoped;
        b.ruleScope = ruleScope;
        return b;
    }

    /** Builds a {@link Verdict} by name rather than by position. */
    public static final class Builder {
        private final FailureReason reason;
        private final int status;
        private LockScope lockScope;
        private boolean fallback = true;
        private Long retryAfterMs;
        private HintSource hintSource;
        private Long cooldownMs;
        private boolean permanent;
        private boolean creditsExhausted;
        private boolean skipProviderBreaker;
        private boolean requestScoped;
        private LockScope ruleScope;

        private Builder(FailureReason reason, int status, LockScope lockScope) {
            this.reason = reason;
            this.status = status;
            this.lockScope = lockScope;
        }

        /** @param fallback whether to try the next connection @return this */
        public Builder fallback(boolean fallback) {
            this.fallback = fallback;
            return this;
        }

        /** @param ms the hint @param source its source @return this */
        public Builder hint(Long ms, HintSource source) {
            this.retryAfterMs = ms;
            this.hintSource = source;
            return this;
        }

        /** @param ms the cooldown the failure declares, or null @return this */
        public Builder cooldownMs(Long ms) {
            this.cooldownMs = ms;
            return this;
        }

        /** @param scope what the failure is evidence about @return this */
        public Builder lockScope(LockScope scope) {
            this.lockScope = scope;
            return this;
        }

        /** The account is unusable until an operator acts. @return this */
        public Builder permanent() {
            this.permanent = true;
            return this;
        }

        /** The account is out of credits. @return this */
        public Builder creditsExhausted() {
            this.creditsExhausted = true;
            return this;
        }

        /** @param skip whether it never counts for the provider breaker @return this */
        public Builder skipProviderBreaker(boolean skip) {
            this.skipProviderBreaker = skip;
            return this;
        }

        /** The failure belongs to the request (BO-7): nothing is cooled, locked or counted. @return this */
        public Builder requestScoped() {
            this.requestScoped = true;
            return this;
        }

        /** @param scope the scope of a matched provider error rule, or null @return this */
        public Builder ruleScope(LockScope scope) {
            this.ruleScope = scope;
            return this;
        }

        /** @return the verdict */
        public Verdict build() {
            return new Verdict(reason, status, fallback, retryAfterMs, hintSource, cooldownMs, lockScope, permanent, creditsExhausted,
                    skipProviderBreaker, requestScoped, ruleScope);
        }
    }

    /**
     * Copy with a retry hint.
     *
     * @param ms the hint in ms
     * @param source its source
     * @return the copy
     */
    public Verdict withHint(long ms, HintSource source) {
        return toBuilder().hint(ms, source).build();
    }

    /**
     * This failure as the mechanisms should see it when something else already took it (RQ-4's
     * model lock for a long {@code RetryInfo}): request-scoped, so no breaker count, cooldown or
     * lockout follows; fallback unchanged.
     *
     * @return the verdict for the engine
     */
    public Verdict asHandledElsewhere() {
        return toBuilder().requestScoped().build();
    }

    /**
     * Copy for a failure of the connection's own outbound route (its proxy or local address):
     * {@code connection} scope, never counted for the provider breaker.
     *
     * @return the copy
     */
    public Verdict asConnectionFailure() {
        return toBuilder().lockScope(LockScope.CONNECTION).skipProviderBreaker(true).build();
    }

    /**
     * Whether this failure counts for the provider circuit breaker (CB-3): a provider-level status
     * (408/500/502/503/504) or a transport failure classified {@code server_error},
     * {@code timeout} or {@code network_error}; never when {@code skipProviderBreaker} or
     * {@code requestScoped}.
     *
     * @return true when it counts
     */
    public boolean countsForBreaker() {
        // an account-level verdict on a 5xx (a deactivation or empty-wallet text) is the account's, not the provider's
        return serviceLevel(reason) && !skipProviderBreaker && !requestScoped && BREAKER_STATUSES.contains(status);
    }

    /**
     * Whether a reason is evidence about the upstream service rather than an account, a model or
     * the request: {@code server_error}, {@code timeout}, {@code network_error}.
     *
     * @param reason the reason
     * @return true for the service-level reasons
     */
    public static boolean serviceLevel(FailureReason reason) {
        return reason == FailureReason.SERVER_ERROR || reason == FailureReason.TIMEOUT || reason == FailureReason.NETWORK_ERROR;
    }
}
