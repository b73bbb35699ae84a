package dev.sluice.api.rules;

import java.util.Locale;

/** Why an upstream attempt failed (SPEC FC-1). The wire name is the lower-case name. */
public enum FailureReason {
    /** 429 rate limit. */
    RATE_LIMIT_EXCEEDED,
    /** A quota or usage limit was reached (429 with quota text, or a rule). */
    QUOTA_EXHAUSTED,
    /** Too many concurrent requests on the account. */
    CONCURRENCY_LIMITED,
    /** The account is out of credits (terminal). */
    CREDITS_EXHAUSTED,
    /** 401/403 authentication failure. */
    AUTH_ERROR,
    /** 403 forbidden. */
    FORBIDDEN,
    /** The upstream refused this kind of request (e.g. Anthropic OAuth "Request not allowed"). */
    REQUEST_REJECTED,
    /** The account was banned or deactivated (terminal). */
    BANNED,
    /** The OAuth token is unusable. */
    EXPIRED,
    /** 404: the model does not exist upstream. */
    NOT_FOUND,
    /** 404 from a local server. */
    NOT_FOUND_LOCAL,
    /** The request exceeds the model's context window. */
    CONTEXT_OVERFLOW,
    /** The account may not use this model. */
    MODEL_ACCESS_DENIED,
    /** The request is malformed for the upstream. */
    BAD_REQUEST,
    /** 5xx. */
    SERVER_ERROR,
    /** 408 or a client-side timeout. */
    TIMEOUT,
    /** Reset, refused, DNS. */
    NETWORK_ERROR,
    /** The content-stall watchdog gave up on a stream. */
    STREAM_STALL,
    /** The gateway's own synthetic 502 for an empty or invalid upstream answer. */
    QUALITY_FAILURE;

    /**
     * The wire name, e.g. {@code rate_limit_exceeded}.
     *
     * @return the lower-case name
     */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
