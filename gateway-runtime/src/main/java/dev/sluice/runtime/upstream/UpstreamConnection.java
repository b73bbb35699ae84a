package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import dev.sluice.runtime.io.Deadlines;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One blocking HTTP/1.1 connection to an upstream (plain or TLS) with its read buffer: requests
 * go out in one write each, responses are read through the buffer by {@link ResponseHeads} and
 * {@link ResponseBody}. Used by one exchange at a time; {@link #close()} may come from another
 * thread (a watchdog, a client that went away) and ends a read blocked on the socket. Its reads are
 * bounded by {@link Deadlines}, not by a socket read timeout (the TLS handshake's excepted).
 */
final class UpstreamConnection implements AutoCloseable, Deadlines.Waiter {

    /** The read buffer: one response head line must fit in it. */
    static final int BUFFER_BYTES = 16 * 1024;

    private final Origin origin;
    private final Socket socket;
    /** The TCP socket: under TLS the one beneath {@link #socket}, closed to end a read that timed out. */
    private final Socket tcp;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buf = new byte[BUFFER_BYTES];
    private int pos;
    private int lim;
    /** Bytes read from the socket since the last request was written. */
    private long received;
    /** Whether it served an exchange before (it came from the pool). */
    private boolean reused;
    /** The bound on each read of the answer in exchange, ns. */
    private long readBoundNanos;
    /** When the read in progress times out ({@link System#nanoTime()} scale). */
    private volatile long readDeadline;
    /** Set when a read outlived its bound: the socket is closed, and every read fails as timed out. */
    private volatile boolean timedOut;
    /** When it went idle into the pool, {@link System#nanoTime()} scale. */
    private long idleSince;

    private UpstreamConnection(Origin origin, Socket socket, Socket tcp, int readTimeoutMs) throws IOException {
        this.origin = origin;
        this.readBoundNanos = readTimeoutMs * 1_000_000L;
        this.socket = socket;
        this.tcp = tcp;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * Connects (and for {@code https} completes the TLS handshake, verifying the host name).
     *
     * @param origin where to
     * @param connectTimeoutMs connect timeout
     * @param readTimeoutMs the bound on each read, the handshake's included
     * @param tls the TLS socket factory of {@code https} origins
     * @return the connection
     * @throws IOException on failure: {@link UnknownHostException} when the host does not resolve,
     *     {@link java.net.ConnectException} when refused, {@link java.net.SocketTimeoutException} on a timeout
     */
    static UpstreamConnection open(Origin origin, int connectTimeoutMs, int readTimeoutMs, SSLSocketFactory tls) throws IOException {
        String host = origin.bareHost();
        InetSocketAddress address = new InetSocketAddress(host, origin.port());
        if (address.isUnresolved()) {
            throw new UnknownHostException("cannot resolve the upstream host " + host);
        }
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(address, connectTimeoutMs);
            if (!origin.tls()) {
                return new UpstreamConnection(origin, socket, socket, readTimeoutMs);
            }
            socket.setSoTimeout(readTimeoutMs); // the handshake's reads, once per connection
            SSLSocket ssl = (SSLSocket) tls.createSocket(socket, host, origin.port(), true);
            SSLParameters p = ssl.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            if (IpLiterals.parse(host) == null) {
                p.setServerNames(List.of(new SNIHostName(host)));
            }
            ssl.setSSLParameters(p);
            ssl.startHandshake();
            socket.setSoTimeout(0);
            return new UpstreamConnection(origin, ssl, socket, readTimeoutMs);
        } catch (IOException | RuntimeException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // the failure is what is reported
            }
            throw e;
        }
    }

    Origin origin() {
        return origin;
    }

    boolean reused() {
        return reused;
    }

    /** Marks it taken from the pool for a further exchange. */
    void reuse() {
        reused = true;
    }

    long idleSince() {
        return idleSince;
    }

    void idleSince(long nanos) {
        idleSince = nanos;
    }

    /** @return bytes received since the last request was written: 0 means not one byte of an answer */
    long received() {
        return received;
    }

    /** @return whether bytes past the last response are buffered (then it cannot serve another) */
    boolean hasBuffered() {
        return pos < lim;
    }

    /**
     * Writes a request (and sets the read bound of its answer).
     *
     * @param request the request's bytes, head and body
     * @param readTimeoutMs the bound on each read of its answer
     * @throws IOException on a write failure
     */
    void write(byte[] request, int readTimeoutMs) throws IOException {
        received = 0;
        readBoundNanos = readTimeoutMs * 1_000_000L;
        out.write(request);
        out.flush();
    }

    /** Refills the buffer when empty; returns false at EOF. */
    private boolean fill() throws IOException {
        if (pos < lim) {
            return true;
        }
        int n = socketRead(buf, 0, buf.length);
        if (n < 0) {
            return false;
        }
        pos = 0;
        lim = n;
        received += n;
        return true;
    }

    /**
     * Reads up to {@code len} bytes: what is buffered, else what one socket read returns.
     *
     * @return the count, or -1 at EOF
     */
    int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == lim && len >= buf.length) {
            // a large read goes straight to the caller's array
            int n = socketRead(b, off, len);
            if (n > 0) {
                received += n;
            }
            return n;
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    /** @return bytes readable without blocking */
    int available() throws IOException {
        return lim - pos + in.available();
    }

    /**
     * Reads one line ending in CRLF (or a bare LF), without its end.
     *
     * @return the line (ISO-8859-1), or null at EOF before its first byte
     * @throws ProtocolException past {@link #BUFFER_BYTES} bytes, or at EOF inside the line
     */
    String readLine() throws IOException {
        if (!fill()) {
            return null;
        }
        for (;;) {
            for (int i = pos; i < lim; i++) {
                if (buf[i] == '\n') {
                    int end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
                    String line = new String(buf, pos, end - pos, ISO_8859_1);
                    pos = i + 1;
                    return line;
                }
            }
            // the line goes on past the buffered bytes: move them to the front and read more
            int have = lim - pos;
            if (have == buf.length) {
                throw new ProtocolException("the upstream sent a response line longer than " + BUFFER_BYTES + " bytes");
            }
            System.arraycopy(buf, pos, buf, 0, have);
            pos = 0;
            lim = have;
            int n = socketRead(buf, lim, buf.length - lim);
            if (n < 0) {
                throw new java.io.EOFException("upstream connection closed inside a response line");
            }
            received += n;
            lim += n;
        }
    }

    /** One read of the socket, bounded by the exchange's read bound ({@link Deadlines}). */
    private int socketRead(byte[] b, int off, int len) throws IOException {
        if (timedOut) {
            throw timedOut(null);
        }
        readDeadline = System.nanoTime() + readBoundNanos;
        Deadlines.enter(this);
        try {
            return in.read(b, off, len);
        } catch (IOException e) {
            throw timedOut ? timedOut(e) : e;
        } finally {
            Deadlines.leave(this);
        }
    }

    /** The failure of a read that outlived its bound: as the socket's read timeout reports it. */
    private static SocketTimeoutException timedOut(IOException cause) {
        SocketTimeoutException e = new SocketTimeoutException("Read timed out");
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    @Override
    public long deadline() {
        return readDeadline;
    }

    @Override
    public void expire() {
        if (!timedOut) {
            timedOut = true;
            try {
                tcp.close();
            } catch (IOException ignored) {
                // the read fails on the flag either way
            }
        }
    }

    /** @return the socket's own read timeout, ms (0: none; for tests) */
    int socketReadTimeoutMs() throws IOException {
        return socket.getSoTimeout();
    }

    /** Closes the socket: a read blocked on it ends. Idempotent, any thread. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }
}
