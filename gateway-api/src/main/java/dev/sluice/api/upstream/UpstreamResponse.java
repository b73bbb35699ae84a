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

    /**
     * The most bytes a whole (not streamed) answer may have when no host bound applies: 64 MiB.
     * The host's own bound is the operator's {@code upstream.maxAnswerBytes}.
     */
    int DEFAULT_MAX_WHOLE_BODY = 64 * 1024 * 1024;

    /**
     * The most bytes of one server-sent event (or line) when no host bound applies: 4 MiB. The
     * host's own bound is the operator's {@code upstream.maxEventBytes}.
     */
    int DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

    /**
     * Reads the whole body of an answer that is not streamed, within the host's memory bounds: at
     * most the host's per-answer limit, and only while the answers being read at once stay within
     * the host's budget for them. Executors read complete answers with this rather than from
     * {@link #body()}, so that a hostile or broken upstream cannot exhaust the gateway's memory.
     * The default (for responses not made by the host) reads up to {@link #DEFAULT_MAX_WHOLE_BODY}.
     *
     * @return the body
     * @throws IOException on a transport failure, or a {@link java.net.ProtocolException} when the
     *     answer is larger than the host accepts or the host has no room to buffer it now
     */
    default byte[] wholeBody() throws IOException {
        byte[] bytes = body().readNBytes(DEFAULT_MAX_WHOLE_BODY + 1);
        if (bytes.length > DEFAULT_MAX_WHOLE_BODY) {
            throw new java.net.ProtocolException("upstream answer exceeds " + DEFAULT_MAX_WHOLE_BODY + " bytes");
        }
        return bytes;
    }

    /**
     * The most bytes one server-sent event (or line) of this body may have: readers of a stream
     * fail it past this, as the upstream's protocol error. The host's is the operator's setting.
     *
     * @return the bound, in bytes
     */
    default int maxEventBytes() {
        return DEFAULT_MAX_EVENT_BYTES;
    }

    /** Releases the connection (back to the pool when the body was read to the end). */
    @Override
    void close();
}
