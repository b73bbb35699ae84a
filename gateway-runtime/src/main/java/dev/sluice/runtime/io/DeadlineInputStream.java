package dev.sluice.runtime.io;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;

/**
 * A body that must be read by a deadline: a read that starts after it fails with a
 * {@link SocketTimeoutException}. The socket's own read timeout ends a body that stops arriving;
 * this ends one that keeps trickling (an upstream that sends its headers, then a byte now and then,
 * for ever). Checked between reads, so it costs one clock read per read.
 */
public final class DeadlineInputStream extends FilterInputStream {

    private final long deadlineNanos;
    private final long boundMs;

    /**
     * Wraps a body.
     *
     * @param in the body
     * @param boundMs how long, from now, the whole body may take
     */
    public DeadlineInputStream(InputStream in, long boundMs) {
        super(in);
        this.boundMs = boundMs;
        this.deadlineNanos = System.nanoTime() + boundMs * 1_000_000L;
    }

    private void check() throws SocketTimeoutException {
        if (System.nanoTime() - deadlineNanos > 0) {
            throw new SocketTimeoutException("the upstream answer did not finish within " + boundMs + " ms of its headers");
        }
    }

    @Override
    public int read() throws IOException {
        check();
        return super.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        check();
        return super.read(b, off, len);
    }
}
