package dev.sluice.runtime.io;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;

/**
 * An upstream stream's body bounded in all ({@code upstream.maxStreamBytes}, issue 29): an upstream
 * that streams for ever, in events each under {@code upstream.maxEventBytes}, is ended instead of
 * held. Read by one thread at a time (the stream's pump), so the count is a plain field.
 */
final class StreamedBody extends FilterInputStream {

    private final long maxBytes;
    private long read;

    StreamedBody(InputStream in, long maxBytes) {
        super(in);
        this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
            count(1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
            count(n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long k = in.skip(n);
        if (k > 0) {
            count(k);
        }
        return k;
    }

    private void count(long n) throws ProtocolException {
        read += n;
        if (read > maxBytes) {
            // a protocol error of the upstream (TransportErrorKind.PROTOCOL): an error event, not a torn stream
            throw new ProtocolException("the upstream stream exceeded upstream.maxStreamBytes (" + maxBytes
                    + " bytes, the gateway's limit on one streamed answer)");
        }
    }
}
