package dev.sluice.testkit.plugin;

/**
 * Where a login stands, as {@code GET /api/oauth/flows/{id}} says, with the connection it made.
 *
 * @param status the flow's status
 * @param error why it failed or expired, or null
 * @param connection the connection created or updated (connected), or null
 */
public record LoginResult(Status status, String error, LoginConnection connection) {

    /** A flow's status: pending until it ends once. */
    public enum Status {
        /** Waiting for the code, or for the user code to be entered. */
        PENDING,
        /** The token answer became a connection. */
        CONNECTED,
        /** Refused (wrong state, denied, a refused exchange, an unusable token answer); nothing was created. */
        FAILED,
        /** Not completed in time ({@code expired_token}, or the host's 10 minutes). */
        EXPIRED
    }

    /**
     * Validates.
     */
    public LoginResult {
        java.util.Objects.requireNonNull(status, "status is null");
    }

    /**
     * The connection, for a connected login.
     *
     * @return the connection
     * @throws IllegalStateException naming the status and the error otherwise
     */
    @Override
    public LoginConnection connection() {
        if (connection == null) {
            throw new IllegalStateException("the login is " + status.name().toLowerCase(java.util.Locale.ROOT)
                    + (error == null ? "" : ": " + error) + "; it made no connection");
        }
        return connection;
    }

    /** @return whether the login made a connection */
    public boolean connected() {
        return status == Status.CONNECTED;
    }
}
