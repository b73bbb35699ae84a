package dev.sluice.runtime.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The response body as a blocking stream that yields each part as the JDK delivers it (so SSE
 * relays without buffering), one part requested ahead. A read that waits longer than the
 * request's timeout fails with {@link SocketTimeoutException}, like WebClient's socket read
 * timeout.
 */
final class JdkBodyStream extends InputStream implements Flow.Subscriber<List<ByteBuffer>> {
    private static final Object END = new Object();

    private final long timeoutNanos;
    private final LinkedBlockingQueue<Object> parts = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;
    private volatile boolean closed;
    private Iterator<ByteBuffer> pending = Collections.emptyIterator();
    private ByteBuffer current;
    private boolean ended;

    JdkBodyStream(Duration readTimeout) {
        this.timeoutNanos = readTimeout.toNanos();
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (closed) {
            s.cancel();
        } else {
            s.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        parts.add(item);
    }

    @Override
    public void onError(Throwable t) {
        parts.add(new Failure(t));
    }

    @Override
    public void onComplete() {
        parts.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (closed) {
            throw new IOException("stream closed");
        }
        if (len == 0) {
            return 0;
        }
        while (current == null || !current.hasRemaining()) {
            if (pending.hasNext()) {
                current = pending.next();
                continue;
            }
            if (ended) {
                return -1;
            }
            next();
        }
        int n = Math.min(len, current.remaining());
        current.get(b, off, n);
        return n;
    }

    @Override
    public int available() {
        return current == null ? 0 : current.remaining();
    }

    /** Waits for the next part, the end, or a failure. */
    private void next() throws IOException {
        Object part;
        try {
            part = parts.poll(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancel();
            throw new InterruptedIOException("interrupted while reading the upstream body");
        }
        if (part == null) {
            cancel();
            throw new SocketTimeoutException("read timed out");
        }
        if (part == END) {
            ended = true;
        } else if (part instanceof Failure f) {
            ended = true;
            throw JdkTransportErrors.normalize(f.cause());
        } else {
            @SuppressWarnings("unchecked")
            List<ByteBuffer> buffers = (List<ByteBuffer>) part;
            pending = buffers.iterator();
            Flow.Subscription s = subscription;
            if (s != null) {
                s.request(1);
            }
        }
    }

    private void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    /** Cancels the body when it was not read to the end, which discards the connection. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            cancel();
            parts.add(END); // wakes a reader blocked on another thread
        }
    }

    private record Failure(Throwable cause) {
    }
}
