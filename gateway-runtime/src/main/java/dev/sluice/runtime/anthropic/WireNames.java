package dev.sluice.runtime.anthropic;

/**
 * Anthropic's names for canonical facts: stop reasons, error types, message ids. Shared by the
 * complete-answer writer, the stream translator and the error mapper, so they cannot disagree.
 */
final class WireNames {

    private WireNames() {
    }

    /**
     * Anthropic's {@code stop_reason} for a canonical (OpenAI) finish reason.
     *
     * @param finishReason the finish reason, or null
     * @return the stop reason; {@code end_turn} for an unknown or absent one
     */
    static String stopReason(String finishReason) {
        if (finishReason == null) {
            return "end_turn";
        }
        return switch (finishReason) {
            case "length" -> "max_tokens";
            case "tool_calls", "function_call" -> "tool_use";
            case "content_filter" -> "refusal";
            default -> "end_turn";
        };
    }

    /**
     * Anthropic's error {@code type} for an HTTP status.
     *
     * @param status the status
     * @return the type
     */
    static String errorType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        };
    }

    /** Anthropic ids start with {@code msg_}; an upstream's own id is kept after the prefix, for tracing. */
    static String messageId(String upstreamId, String fallbackId) {
        if (upstreamId == null || upstreamId.isEmpty()) {
            return fallbackId;
        }
        return upstreamId.startsWith("msg_") ? upstreamId : "msg_" + upstreamId;
    }
}
