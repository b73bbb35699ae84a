package dev.sluice.plugin.gemini;

/** A JSON text that {@link Json} refused, with the offset where it went wrong. */
final class JsonException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong
     * @param offset character offset in the text
     */
    JsonException(String message, int offset) {
        super(message + " at offset " + offset, null, false, false);
    }
}
