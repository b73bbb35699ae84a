package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.runtime.io.AnswerBuffers;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response of {@link SocketUpstreamHttp}: its connection is released exactly once, back to the
 * pool when its body ended and neither side said {@code Connection: close}, else closed. A close
 * from another thread (a watchdog's abort, a client gone) that comes first closes the socket, so a
 * read blocked on it ends; one that comes after the body ended does nothing (the connection may
 * serve another request by then).
 */
final class SocketResponse extends BoundedResponse {

    private final UpstreamConnection c;
    private final UpstreamPool pool;
    private final boolean keepAlive;
    private final AtomicBoolean released = new AtomicBoolean();

    /**
     * @param c the connection, its head read
     * @param pool where it goes back to
     * @param h the head
     * @param whole whether the answer is whole (watched) rather than a stream (bounded in all)
     * @param sentNanos when the request was sent
     * @param timeoutMs the request's timeout, ms
     * @param buffers the answer bounds
     */
    SocketResponse(UpstreamConnection c, UpstreamPool pool, ResponseHeads.Head h, boolean whole, long sentNanos, long timeoutMs,
            AnswerBuffers buffers) {
        super(new ResponseHead(h.status(), h.headers()), buffers);
        this.c = c;
        this.pool = pool;
        this.keepAlive = h.keepAlive();
        ResponseBody framed = new ResponseBody(c, this, h.bodyLength());
        if (framed.empty()) {
            bodyEnded();
        }
        bound(framed, whole, sentNanos, timeoutMs);
    }

    /** The body ended: the connection serves another exchange if it may, else it is closed. */
    void bodyEnded() {
        if (released.compareAndSet(false, true)) {
            if (keepAlive && !c.hasBuffered()) {
                pool.give(c);
            } else {
                c.close();
            }
        }
    }

    /** Closes it: a body not read to its end discards the connection. Idempotent, any thread. */
    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            c.close();
        }
    }
}
