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
     */
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
}
