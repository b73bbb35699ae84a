package dev.sluice.runtime.openai;

/**
 * A client request that cannot be translated: names the offending parameter. Stack-less: it is a
 * normal outcome of bad input, not a bug.
 */
public final class InvalidRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String param;

    /**
     * Creates the exception.
     *
     * @param param the offending parameter path (e.g. {@code messages[0].role}), or null
     * @param message what is wrong
     */
    public InvalidRequestException(String param, String message) {
        super(message, null, false, false);
        this.param = param;
    }

    /**
     * The offending parameter.
     *
     * @return the parameter path, or null
     */
    public String param() {
        return param;
    }
}
