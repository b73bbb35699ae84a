package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.io.AnswerBuffers;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * What every client's {@link UpstreamResponse} shares: its head, and its body within the answer
 * bounds — a whole answer watched from the request's sending on within its deadline (issues 19,
 * 28; the watch's abort closes the response), a stream bounded in all (issue 29). A client's
 * response gives its raw body once, from its constructor, through {@link #bound}, and says how
 * it closes.
 */
abstract class BoundedResponse implements UpstreamResponse {

    private final ResponseHead head;
    private final AnswerBuffers buffers;
    private InputStream body;

    /**
     * Whether the request asks for a whole answer rather than an event stream: its body must then
     * arrive within the request's timeout from the headers on, so an upstream that trickles it for
     * ever cannot hold an attempt (issue 19; every client decides by it).
     */
    static boolean wholeAnswer(UpstreamRequest request) {
        for (Map.Entry<String, String> h : request.headers().entrySet()) {
            if (h.getKey().equalsIgnoreCase("accept") && h.getValue().contains("text/event-stream")) {
                return false;
            }
        }
        return true;
    }

    BoundedResponse(ResponseHead head, AnswerBuffers buffers) {
        this.head = head;
        this.buffers = buffers;
    }

    /**
     * Sets the body: the raw one within the answer bounds.
     *
     * @param raw the body as the client reads it
     * @param whole whether it is a whole answer (else a stream)
     * @param sentNanos when the request was sent ({@link System#nanoTime()})
     * @param deadlineMs a whole answer's deadline from then, ms
     */
    final void bound(InputStream raw, boolean whole, long sentNanos, long deadlineMs) {
        body = whole ? buffers.watch().watch(raw, sentNanos, deadlineMs, this::close) : buffers.streamed(raw);
    }

    @Override
    public final ResponseHead head() {
        return head;
    }

    @Override
    public final InputStream body() {
        return body;
    }

    @Override
    public final byte[] wholeBody() throws IOException {
        return buffers.read(this);
    }

    @Override
    public final int maxEventBytes() {
        return buffers.maxEventBytes();
    }
}
