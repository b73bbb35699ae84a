package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * {@link UpstreamHttp} on {@code java.net.http.HttpClient} for one {@link EgressRoute}: the only
 * JDK client that can bind a local address ({@code HttpClient.Builder.localAddress}, JDK 19+),
 * which Helidon WebClient cannot. HTTP/1.1, no redirects, the same timeouts as
 * {@link HelidonUpstreamHttp} (connect timeout; the request's timeout bounds the response headers
 * and every later body read) and the same exceptions, so {@code TransportError.of} classifies a
 * failure alike on either client.
 *
 * <p>Proxy: only {@code http://[user:password@]host[:port]} (port 80 by default). The proxy's host
 * is resolved at each connect. For an {@code https} target the JDK opens a tunnel with
 * {@code CONNECT host:port}; for a plain {@code http} target it sends the request itself to the
 * proxy in absolute form ({@code GET http://host:port/path HTTP/1.1}), as HTTP proxies expect.
 * Credentials in the URL are sent preemptively as {@code Proxy-Authorization: Basic …} on every
 * request (no 407 round trip; the JDK never forwards {@code Proxy-*} headers to the origin through
 * a tunnel). The JDK drops Basic proxy credentials from {@code CONNECT} unless the system property
 * {@code jdk.http.auth.tunneling.disabledSchemes} is empty when {@code java.net.http} initialises:
 * {@link EgressRoutes#create} sets it when unset, and the launch script should pass
 * {@code -Djdk.http.auth.tunneling.disabledSchemes=}. {@code https://} (TLS to the proxy) and
 * {@code socks5://} proxies are refused when the client is built: the JDK client would silently
 * connect directly, exposing the host's own address.
 *
 * <p>Measured 2.4× slower than WebClient as a proxy client, which is why it serves only the
 * connections that need a route.
 */
final class JdkUpstreamHttp implements UpstreamHttp {

    /** Headers the JDK sets itself and refuses from callers. */
    static final Set<String> RESTRICTED_HEADERS = Set.of("connection", "content-length", "expect", "host", "upgrade");
    /** Default port of an {@code http://} proxy URL without one. */
    static final int DEFAULT_PROXY_PORT = 80;
    /** The JDK property that keeps Basic credentials off proxy tunnels when it names {@code Basic} (its default). */
    static final String TUNNELING_DISABLED_SCHEMES = "jdk.http.auth.tunneling.disabledSchemes";

    private final HttpClient client;
    private volatile boolean shutDown;
    private final String proxyAuthorization;

    /**
     * Builds the client of a route.
     *
     * @param route the route
     * @param connectTimeout connect timeout
     * @param sslContext TLS context, or null for the JDK default
     * @throws IllegalArgumentException if the local address is not an IP literal or the proxy URL
     *     is not an {@code http://} URL with a host
     */
    JdkUpstreamHttp(EgressRoute route, Duration connectTimeout, SSLContext sslContext) {
        HttpClient.Builder b = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (route.localAddress() != null) {
            InetAddress local = IpLiterals.parse(route.localAddress());
            if (local == null) {
                throw new IllegalArgumentException("localAddress '" + route.localAddress() + "' is not an IP address literal");
            }
            b.localAddress(local);
        }
        String auth = null;
        if (route.proxyUrl() != null) {
            URI proxy = proxyUri(route);
            b.proxy(ProxySelector.of(InetSocketAddress.createUnresolved(proxy.getHost(),
                    proxy.getPort() < 0 ? DEFAULT_PROXY_PORT : proxy.getPort())));
            if (proxy.getUserInfo() != null) {
                auth = "Basic " + Base64.getEncoder().encodeToString(
                        (proxy.getUserInfo().contains(":") ? proxy.getUserInfo() : proxy.getUserInfo() + ":").getBytes(UTF_8));
            }
        } else {
            b.proxy(HttpClient.Builder.NO_PROXY);
        }
        if (sslContext != null) {
            b.sslContext(sslContext);
        }
        this.proxyAuthorization = auth;
        this.client = b.build();
    }

    private static URI proxyUri(EgressRoute route) {
        URI u;
        try {
            u = new URI(route.proxyUrl());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("proxyUrl is not a valid URL: " + e.getReason());
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http")) {
            throw new IllegalArgumentException("proxy scheme '" + scheme + "' is not supported (only http:// proxies);"
                    + " the request is not sent directly instead");
        }
        if (u.getHost() == null) {
            throw new IllegalArgumentException("proxyUrl has no host");
        }
        return u;
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws IOException {
        try {
            HttpResponse<Flow.Publisher<List<ByteBuffer>>> res = client.send(build(request), HttpResponse.BodyHandlers.ofPublisher());
            return new Response(res, request.timeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the upstream");
        } catch (IOException e) {
            throw normalize(e);
        } catch (RuntimeException e) {
            throw HelidonUpstreamHttp.asIo(e);
        }
    }

    private HttpRequest build(UpstreamRequest request) {
        HttpRequest.Builder b = HttpRequest.newBuilder(request.uri())
                .version(HttpClient.Version.HTTP_1_1)
                .timeout(request.timeout());
        boolean hasProxyAuth = false;
        for (Map.Entry<String, String> h : request.headers().entrySet()) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (!RESTRICTED_HEADERS.contains(name)) {
                b.header(h.getKey(), h.getValue());
                hasProxyAuth |= name.equals("proxy-authorization");
            }
        }
        if (proxyAuthorization != null && !hasProxyAuth) {
            b.header("Proxy-Authorization", proxyAuthorization);
        }
        if (request.body().length == 0 && request.method().equals("GET")) {
            b.GET();
        } else {
            b.method(request.method(), request.body().length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(request.body()));
        }
        return b.build();
    }

    /**
     * The JDK's exceptions turned into the ones {@link HelidonUpstreamHttp} throws for the same
     * failure, so that {@code TransportError.of} gives the same kind on either client.
     */
    static IOException normalize(Throwable e) {
        if (e instanceof HttpConnectTimeoutException) {
            return withCause(new SocketTimeoutException("connect timed out"), e);
        }
        if (e instanceof HttpTimeoutException) {
            return withCause(new SocketTimeoutException("read timed out waiting for the response headers"), e);
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return withCause(new UnknownHostException("cannot resolve the upstream host"), e);
            }
        }
        if (e instanceof ConnectException ce) {
            return ce.getMessage() == null ? withCause(new ConnectException("connection refused"), e) : ce;
        }
        if (e instanceof IOException io) {
            String m = String.valueOf(io.getMessage()).toLowerCase(Locale.ROOT);
            // the JDK's words for a peer that closed before or inside the response
            if (m.contains("received no bytes") || m.contains("fixed content-length") || m.contains("chunked")) {
                return new IOException("upstream connection closed: " + io.getMessage(), io);
            }
            return io;
        }
        if (e instanceof RuntimeException re) {
            return HelidonUpstreamHttp.asIo(re);
        }
        return new IOException("upstream connection closed: " + e, e);
    }

    private static IOException withCause(IOException io, Throwable cause) {
        io.initCause(cause);
        return io;
    }

    /**
     * Stops accepting new requests.
     */
    void shutdown() {
        shutDown = true;
        client.shutdown();
    }

    /** Whether {@link #shutdown()} (or {@link #shutdownNow()}) was called: it takes no new requests. */
    boolean isShutDown() {
        return shutDown;
    }

    /**
     * Waits for requests in flight to end.
     *
     * @param timeout how long at most
     * @return whether all ended
     * @throws InterruptedException if interrupted
     */
    boolean awaitTermination(Duration timeout) throws InterruptedException {
        return client.awaitTermination(timeout);
    }

    /** Aborts the requests still in flight and closes every connection. */
    void shutdownNow() {
        shutDown = true;
        client.shutdownNow();
    }

    private static final class Response implements UpstreamResponse {
        private final ResponseHead head;
        private final BodyStream body;

        Response(HttpResponse<Flow.Publisher<List<ByteBuffer>>> res, Duration readTimeout) {
            this.head = new ResponseHead(res.statusCode(), res.headers().map());
            this.body = new BodyStream(readTimeout);
            res.body().subscribe(body);
        }

        @Override
        public ResponseHead head() {
            return head;
        }

        @Override
        public InputStream body() {
            return body;
        }

        @Override
        public void close() {
            body.close();
        }
    }

    /**
     * The response body as a blocking stream that yields each part as the JDK delivers it (so SSE
     * relays without buffering), one part requested ahead. A read that waits longer than the
     * request's timeout fails with {@link SocketTimeoutException}, like WebClient's socket read
     * timeout.
     */
    static final class BodyStream extends InputStream implements Flow.Subscriber<List<ByteBuffer>> {
        private static final Object END = new Object();

        private final long timeoutNanos;
        private final LinkedBlockingQueue<Object> parts = new LinkedBlockingQueue<>();
        private volatile Flow.Subscription subscription;
        private volatile boolean closed;
        private Iterator<ByteBuffer> pending = java.util.Collections.emptyIterator();
        private ByteBuffer current;
        private boolean ended;

        BodyStream(Duration readTimeout) {
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
            java.util.Objects.checkFromIndexSize(off, len, b.length);
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
                throw normalize(f.cause());
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
}
