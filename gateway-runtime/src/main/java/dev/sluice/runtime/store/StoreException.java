package dev.sluice.runtime.store;

/** A persistence failure (never carries secrets). */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param cause the cause
     */
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
