package dev.sluice.testkit.plugin;

/**
 * The host refused a login step, as the admin API answers it with {@link #status()} and the error
 * envelope's {@code code} and {@code param}: an unknown, expired or already used {@code state}
 * (400), a flow the login does not offer (400), a step on an ended flow (409), a device endpoint
 * that refused (502). The message is the one the operator reads.
 */
public final class LoginRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final String param;

    LoginRefusedException(int status, String code, String param, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.param = param;
    }

    /** @return the HTTP status the admin API answers */
    public int status() {
        return status;
    }

    /** @return the error code, e.g. {@code invalid_request}, {@code flow_ended} */
    public String code() {
        return code;
    }

    /** @return the offending field ({@code state}, {@code flow}, {@code callbackUrl}), or null */
    public String param() {
        return param;
    }
}
