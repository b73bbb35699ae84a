package dev.sluice.runtime.oauth;

/**
 * A login request the host refuses; the web layer's error mapper answers it with {@code status}
 * in the API's error envelope. The message never contains a token, code or verifier.
 */
public final class LoginException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final String param;

    LoginException(int status, String code, String param, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.param = param;
    }

    static LoginException badRequest(String param, String message) {
        return new LoginException(400, "invalid_request", param, message);
    }

    static LoginException notFound(String code, String message) {
        return new LoginException(404, code, null, message);
    }

    /** @return the HTTP status */
    public int status() {
        return status;
    }

    /** @return the error code */
    public String code() {
        return code;
    }

    /** @return the offending field, or null */
    public String param() {
        return param;
    }
}
