package dev.sluice.plugin.gemini;

/** A success answer that is not a {@code GenerateContentResponse}; the executor reports it as a protocol failure. */
final class UnexpectedAnswerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong with the answer
     */
    UnexpectedAnswerException(String message) {
        super(message, null, false, false);
    }
}
