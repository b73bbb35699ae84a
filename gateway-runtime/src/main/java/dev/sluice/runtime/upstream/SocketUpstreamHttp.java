package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.io.AnswerBuffers;
import java.io.EOFException;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;

/**
 * {@link UpstreamHttp} on plain blocking sockets, HTTP/1.1 only (issue 26): the runtime's client of
 * connections without an egress route. Request threads are virtual, so a blocking read costs a
 * parked virtual thread, not a carrier; what WebClient spent per request (its connection key and
 * TLS hashing, header objects, its connection cache and entity plumbing; ~26 % of the request
 * threads' CPU at c64) is here one byte array written per request ({@link RequestBytes}), a head
 * parsed from one buffer ({@link ResponseHeads}) and a lock-free LIFO pool ({@link UpstreamPool}).
 *
 * <p>Timeouts as {@link HelidonUpstreamHttp} applies them: the connect timeout; every read of the
 * answer (TLS handshake, head, body) bounded by the request's timeout, or for a whole answer (not
 * {@code text/event-stream}) by {@link dev.sluice.runtime.io.AnswerWatch#headersWait}, and its body
 * watched ({@link dev.sluice.runtime.io.AnswerWatch}); a stream's body bounded in all
 * ({@link AnswerBuffers#streamed}). Failures are the JDK's socket exceptions, which
 * {@code TransportError.of} classifies: {@link java.net.UnknownHostException},
 * {@link java.net.ConnectException}, {@link java.net.SocketTimeoutException}, {@code Connection
 * reset}, and {@link EOFException}s saying the upstream connection closed.
 *
 * <p>Stale keep-alive connections: upstreams close idle keep-alive connections on their own timer,
 * and a close that crosses our next request on the wire would fail an attempt that never reached
 * the upstream. So a pooled connection idle for {@link #MAX_IDLE} is not used, and when a reused
 * connection fails on the write, or ends (EOF) before the first byte of an answer, the request is
 * sent once more on a fresh connection; a fresh connection's failure is reported as is. The retry
 * is safe: an idle close is an orderly FIN sent before the upstream read our request (it reads as
 * EOF even when our request then draws a reset), so the upstream never saw it; and a write that
 * failed never delivered a whole request. A connection <em>reset</em> before the answer, or a
 * timeout, is not retried on any connection: that is an upstream that received the request and
 * then failed (crashed, overloaded, hung), an attempt the runtime must see, classify and fail over
 * (ChatCompletionsIT: a stream that dies before its first chunk fails over; a reset on every
 * connection is a 502).
 *
 * <p>TLS: the JVM's default {@link SSLContext} (its trust store), SNI for host names, host name
 * verification by {@code SSLParameters.setEndpointIdentificationAlgorithm("HTTPS")}.
 */
public final class SocketUpstreamHttp implements UpstreamHttp, AutoCloseable {

    /** Idle keep-alive connections kept per upstream origin (as {@link HelidonUpstreamHttp#CONNECTION_CACHE_SIZE}). */
    static final int CONNECTION_CACHE_SIZE = HelidonUpstreamHttp.CONNECTION_CACHE_SIZE;

    /**
     * How long a pooled connection may have been idle and still serve: 2 s below the shortest
     * common upstream keep-alive timeout (5 s: Node's {@code http} server, uvicorn, and so the
     * OpenAI-compatible servers built on them; nginx 75 s, Go none), so we do not write into a
     * connection the upstream is closing. The retry on a fresh connection covers upstreams shorter still.
     */
    static final Duration MAX_IDLE = Duration.ofSeconds(3);

    private final int connectTimeoutMs;
    private final AnswerBuffers buffers;
    private final SSLContext sslContext;
    private volatile SSLSocketFactory tls;
    private final UpstreamPool pool;

    /**
     * Creates the client.
     *
     * @param connectTimeout connect timeout
     * @param buffers the bounds of whole answers and stream events (issues 19, 28, 29)
     * @param sslContext the TLS context, or null for the JVM's default
     * @param nanos the monotonic clock of the pool's idle bound ({@link System#nanoTime()} scale)
     */
    public SocketUpstreamHttp(Duration connectTimeout, AnswerBuffers buffers, SSLContext sslContext, LongSupplier nanos) {
        this.connectTimeoutMs = millis(connectTimeout);
        this.buffers = Objects.requireNonNull(buffers, "buffers is null");
        this.sslContext = sslContext;
        this.pool = new UpstreamPool(CONNECTION_CACHE_SIZE, MAX_IDLE.toNanos(), nanos);
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws IOException {
        long sent = System.nanoTime();
        boolean whole = BoundedResponse.wholeAnswer(request);
        Origin origin = Origin.of(request.uri());
        byte[] bytes = RequestBytes.of(request, origin);
        // a whole answer's headers are awaited within its deadline too (issue 28)
        int readTimeoutMs = millis(whole ? buffers.watch().headersWait(request.timeout()) : request.timeout());
        boolean headRequest = request.method().equals("HEAD");
        UpstreamConnection c = pool.take(origin);
        if (c != null) {
            try {
                return exchange(c, bytes, readTimeoutMs, headRequest, whole, sent, request.timeout().toMillis());
            } catch (StaleConnection stale) {
                // the upstream closed it while idle: once more on a fresh connection
            }
        }
        c = UpstreamConnection.open(origin, connectTimeoutMs, readTimeoutMs, origin.tls() ? tls() : null);
        try {
            return exchange(c, bytes, readTimeoutMs, headRequest, whole, sent, request.timeout().toMillis());
        } catch (StaleConnection cannot) {
            throw (IOException) cannot.getCause();
        }
    }

    private UpstreamResponse exchange(UpstreamConnection c, byte[] request, int readTimeoutMs, boolean headRequest, boolean whole,
            long sent, long timeoutMs) throws IOException {
        try {
            c.write(request, readTimeoutMs);
        } catch (IOException | RuntimeException e) {
            c.close();
            if (c.reused() && e instanceof IOException && !Thread.currentThread().isInterrupted()) {
                throw new StaleConnection(e);
            }
            throw e;
        }
        ResponseHeads.Head head;
        try {
            head = ResponseHeads.read(c, headRequest);
        } catch (IOException | RuntimeException e) {
            c.close();
            // an orderly close (EOF) before any byte: how an idle close that crossed the request reads
            if (c.reused() && c.received() == 0 && e instanceof EOFException && !Thread.currentThread().isInterrupted()) {
                throw new StaleConnection(e);
            }
            throw e;
        }
        return new SocketResponse(c, pool, head, whole, sent, timeoutMs, buffers);
    }

    /** A reused connection that failed before a byte of the answer (the cause: why). */
    private static final class StaleConnection extends IOException {
        private static final long serialVersionUID = 1L;

        StaleConnection(Exception cause) {
            super(cause.getMessage(), cause);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // only ever caught inside send
        }
    }

    private SSLSocketFactory tls() throws IOException {
        SSLSocketFactory f = tls;
        if (f == null) {
            try {
                f = (sslContext != null ? sslContext : SSLContext.getDefault()).getSocketFactory();
            } catch (NoSuchAlgorithmException e) {
                throw new IOException("no TLS context: " + e.getMessage(), e);
            }
            tls = f;
        }
        return f;
    }

    private static int millis(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }

    /** @return idle connections in the pool (for tests) */
    int idleConnections() {
        return pool.idleCount();
    }

    /** Closes the idle connections; responses still open close theirs when done. */
    @Override
    public void close() {
        pool.close();
    }
}
