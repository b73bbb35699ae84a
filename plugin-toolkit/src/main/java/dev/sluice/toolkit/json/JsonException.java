package dev.sluice.toolkit.json;

/**
 * A JSON text that {@link Json} refused (with the offset where it went wrong), or a value it
 * cannot write. An {@link IllegalArgumentException}: the input, not the reader, is at fault.
 */
public final class JsonException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** Offset of a refused text, or -1 for a value that cannot be written. */
    private final int offset;

    /**
     * A text refused at an offset.
     *
     * @param message what is wrong
     * @param offset character offset in the text
     */
    public JsonException(String message, int offset) {
        super("invalid JSON: " + message + " at offset " + offset);
        this.offset = offset;
    }

    /**
     * A value that cannot be written as JSON.
     *
     * @param message what is wrong
     */
    public JsonException(String message) {
        super(message);
        this.offset = -1;
    }

    /**
     * Where the text went wrong.
     *
     * @return the character offset, or -1 when writing failed
     */
    public int offset() {
        return offset;
    }
}
