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
 */
public record UpstreamError(ResponseHead head, String body, String errorCode, String errorType, String message)
        implements UpstreamFailure {

    /** Validates the fields. */
    public UpstreamError {
        requireNonNull(head, "head is null");
        body = body == null ? "" : body;
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
