package dev.sluice.api.upstream;

import static java.util.Objects.requireNonNull;

/**
 * The upstream answered with an error status.
 *
 * @param head status and headers
 * @param body the error body as text (possibly truncated)
 * @param errorCode the structured error's {@code code}, or null
 * @param errorType the structured error's {@code type}, or null
 * @param message the structured error's {@code message}, or null
 * @param retryHint a retry delay the executor read from the body in a provider-specific,
 *     structured form (e.g. Google {@code RetryInfo}), or null; header hints are read by the
 *     runtime itself
 */
public record UpstreamError(ResponseHead head, String body, String errorCode, String errorType, String message,
        RetryHint retryHint) implements UpstreamFailure {

    /** Validates the fields. */
    public UpstreamError {
        requireNonNull(head, "head is null");
        body = body == null ? "" : body;
    }

    /**
     * An error without a body retry hint.
     *
     * @param head status and headers
     * @param body the error body as text
     * @param errorCode the structured error's code, or null
     * @param errorType the structured error's type, or null
     * @param message the structured error's message, or null
     * @deprecated a positional form that drops every later component: use {@link #builder(ResponseHead)}; removed
     *     at {@code SPI_VERSION} 2
     */
    @Deprecated(since = "0.1")
    public UpstreamError(ResponseHead head, String body, String errorCode, String errorType, String message) {
        this(head, body, errorCode, errorType, message, null);
    }

    /**
     * The HTTP status.
     *
     * @return the status
     */
    public int status() {
        return head.status();
    }

    @Override
    public String describe() {
        String text = message != null && !message.isBlank() ? message : body.strip();
        if (text.length() > 500) {
            text = text.substring(0, 500) + "…";
        }
        return "HTTP " + head.status() + (text.isEmpty() ? "" : ": " + text);
    }

    /**
     * A builder; fields the SPI adds later get defaults here, so code using it keeps linking.
     *
     * @param head status and headers
     * @return the builder (empty body, no structured fields, no retry hint)
     */
    public static Builder builder(ResponseHead head) {
        return new Builder(head);
    }

    /**
     * The same error with a retry hint read from the body.
     *
     * @param hint the hint, or null
     * @return the copy
     */
    public UpstreamError withRetryHint(RetryHint hint) {
        return new UpstreamError(head, body, errorCode, errorType, message, hint);
    }

    /** Builds an {@link UpstreamError}; not thread-safe. */
    public static final class Builder {
        private final ResponseHead head;
        private String body = "";
        private String errorCode;
        private String errorType;
        private String message;
        private RetryHint retryHint;

        private Builder(ResponseHead head) {
            this.head = head;
        }

        /**
         * @param value the error body as text
         * @return this builder
         */
        public Builder body(String value) {
            body = value;
            return this;
        }

        /**
         * @param value the structured error's code, or null
         * @return this builder
         */
        public Builder errorCode(String value) {
            errorCode = value;
            return this;
        }

        /**
         * @param value the structured error's type, or null
         * @return this builder
         */
        public Builder errorType(String value) {
            errorType = value;
            return this;
        }

        /**
         * @param value the structured error's message, or null
         * @return this builder
         */
        public Builder message(String value) {
            message = value;
            return this;
        }

        /**
         * @param value a retry delay read from the body, or null
         * @return this builder
         */
        public Builder retryHint(RetryHint value) {
            retryHint = value;
            return this;
        }

        /**
         * @return the error
         */
        public UpstreamError build() {
            return new UpstreamError(head, body, errorCode, errorType, message, retryHint);
        }
    }
}
