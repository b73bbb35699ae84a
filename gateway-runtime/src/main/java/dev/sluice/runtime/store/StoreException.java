package dev.sluice.runtime.store;

/** A persistence failure (never carries secrets). */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether the database could not be reached (the change was not made; trying again later may work). */
    private final boolean unavailable;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param cause the cause
     */
    public StoreException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param cause the cause
     * @param unavailable whether the database could not be reached
     */
    public StoreException(String message, Throwable cause, boolean unavailable) {
        super(message, cause);
        this.unavailable = unavailable;
    }

    /** @return true when the database could not be reached (HTTP 503 rather than 500) */
    public boolean unavailable() {
        return unavailable;
    }
}
