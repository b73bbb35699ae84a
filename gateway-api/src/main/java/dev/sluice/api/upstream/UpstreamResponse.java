package dev.sluice.api.upstream;

import java.io.IOException;
import java.io.InputStream;

/** An upstream response whose status and headers arrived; the body streams. Close it when done. */
public interface UpstreamResponse extends AutoCloseable {

    /**
     * Status and headers.
     *
     * @return the response head
     */
    ResponseHead head();

    /**
     * The body as it arrives: each read returns what the upstream sent so far, without waiting
     * for the whole body.
     *
     * @return the body stream
     */
    InputStream body();

    /**
     * Reads the whole body as UTF-8, up to a limit (the rest is discarded).
     *
     * @param maxBytes the most bytes to read
     * @return the body text
     * @throws IOException on a transport failure while reading
     */
    default String bodyText(int maxBytes) throws IOException {
        byte[] bytes = body().readNBytes(maxBytes);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Releases the connection (back to the pool when the body was read to the end). */
    @Override
    void close();
}
