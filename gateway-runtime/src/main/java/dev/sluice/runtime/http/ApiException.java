package dev.sluice.runtime.http;

import java.util.Map;

/**
 * An error answer: HTTP status plus the OpenAI error envelope fields
 * ({@code {"error":{"message","type","code","param"}}}). Stack-less: these are normal outcomes.
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;
    private final String code;
    private final String param;
    private final transient Map<String, String> headers;
    private final transient Map<String, Object> details;
    private final boolean detailsAtTop;

    /**
     * Creates the error.
     *
     * @param status HTTP status
     * @param type error type (e.g. {@code invalid_request_error})
     * @param code machine-readable code (e.g. {@code model_not_found})
     * @param message human message
     * @param param offending parameter, or null
     * @param headers extra response headers (e.g. {@code Retry-After})
     */
    public ApiException(int status, String type, String code, String message, String param, Map<String, String> headers) {
        this(status, type, code, message, param, headers, Map.of());
    }

    /**
     * Creates the exception with extra machine-readable fields for the error body.
     *
     * @param status HTTP status
     * @param type error type
     * @param code machine-readable code
     * @param message human message
     * @param param the offending parameter, or null
     * @param headers extra response headers
     * @param details extra fields of the error (e.g. {@code diagnostics}), plain Java values
     */
    public ApiException(int status, String type, String code, String message, String param, Map<String, String> headers,
            Map<String, Object> details) {
        this(status, type, code, message, param, headers, details, false);
    }

    private ApiException(int status, String type, String code, String message, String param, Map<String, String> headers,
            Map<String, Object> details, boolean detailsAtTop) {
        super(message, null, false, false);
        this.detailsAtTop = detailsAtTop;
        this.status = status;
        this.type = type;
        this.code = code;
        this.param = param;
        this.headers = Map.copyOf(headers);
        this.details = Map.copyOf(details);
    }

    /**
     * The same error with its details also at the top level of the body, beside {@code error}: for
     * contracts that name fields there (the lease API's {@code state}, {@code reason},
     * {@code retryAfter}, SPEC SL-5).
     *
     * @return the error
     */
    public ApiException withDetailsAtTop() {
        return new ApiException(status, type, code, getMessage(), param, headers, details, true);
    }

    /** @return whether the details go beside {@code error} too */
    public boolean detailsAtTop() {
        return detailsAtTop;
    }

    /**
     * A 400 naming the offending field.
     *
     * @param param the field
     * @param message what is wrong
     * @return the error
     */
    public static ApiException badRequest(String param, String message) {
        return new ApiException(400, "invalid_request_error", "invalid_request", message, param, Map.of());
    }

    /**
     * A 404.
     *
     * @param code the code
     * @param message the message
     * @return the error
     */
    public static ApiException notFound(String code, String message) {
        return new ApiException(404, "invalid_request_error", code, message, null, Map.of());
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the error type */
    public String type() {
        return type;
    }

    /** @return the error code */
    public String code() {
        return code;
    }

    /** @return the offending parameter, or null */
    public String param() {
        return param;
    }

    /** @return extra response headers */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * Extra fields of the error body.
     *
     * @return field name → plain Java value
     */
    public Map<String, Object> details() {
        return details;
    }
}
