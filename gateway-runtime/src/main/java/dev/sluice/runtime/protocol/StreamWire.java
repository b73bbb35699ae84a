package dev.sluice.runtime.protocol;

/**
 * How a client protocol writes a stream: its frames, its keep-alive, its in-band error and its end.
 *
 * @param <T> the frame type (a canonical chunk, or an upstream event passed through)
 */
public interface StreamWire<T> {

    /**
     * @param frame an upstream frame
     * @return its bytes (a heartbeat as the protocol's keep-alive)
     */
    byte[] frame(T frame);

    /** @return a keep-alive ({@code : keep-alive} comment, Anthropic {@code ping}) */
    byte[] keepAlive();

    /**
     * The in-band error that ends the stream (with the protocol's end marker after a watchdog's).
     *
     * @param code the error code
     * @param text what happened, secrets scrubbed, prefixed with the route
     * @param watchdog whether a watchdog of the gateway's ended the stream
     * @return the bytes
     */
    byte[] error(String code, String text, boolean watchdog);

    /** @return the protocol's end of a completed stream */
    byte[] end();
}
