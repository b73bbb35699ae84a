package dev.sluice.plugin.claude;

/** A 2xx answer that is not a Messages API answer (the executor reports it as a protocol failure). */
final class MalformedAnswerException extends Exception {

    private static final long serialVersionUID = 1L;

    MalformedAnswerException(String message) {
        super(message);
    }
}
