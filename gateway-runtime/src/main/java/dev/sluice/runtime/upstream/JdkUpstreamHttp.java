package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Flow;
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
 *
 * <p>The response is a {@link JdkResponse} whose body streams through {@link JdkBodyStream}; the
 * JDK's exceptions are translated by {@link JdkTransportErrors}.
 */
final class JdkUpstreamHttp implements UpstreamHttp {

    private final dev.sluice.runtime.io.AnswerBuffers buffers;

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
     * A client whose every connection goes out through the route, with memory bounds.
     *
     * @param route the route
     * @param connectTimeout connect timeout
     * @param sslContext TLS context, or null for the JDK default
     * @param buffers the bounds of whole answers and stream events (issue 19)
     */
    JdkUpstreamHttp(EgressRoute route, Duration connectTimeout, SSLContext sslContext, dev.sluice.runtime.io.AnswerBuffers buffers) {
        this.buffers = java.util.Objects.requireNonNull(buffers, "buffers is null");
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
        long sent = System.nanoTime();
        boolean whole = BoundedResponse.wholeAnswer(request);
        try {
            HttpResponse<Flow.Publisher<List<ByteBuffer>>> res = client.send(build(request, whole), HttpResponse.BodyHandlers.ofPublisher());
            return new JdkResponse(res, request.timeout(), whole, sent, buffers);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the upstream");
        } catch (IOException e) {
            throw JdkTransportErrors.normalize(e);
        } catch (RuntimeException e) {
            throw HelidonUpstreamHttp.asIo(e);
        }
    }

    /**
     * The URI without its userinfo: a {@code baseUrl} of {@code http://user:secret@host} would put
     * the secret into the request line an HTTP proxy receives (absolute form), and proxies log
     * request lines (issue 29). Userinfo is never sent, to a proxy or an upstream.
     *
     * @param uri the request's URI
     * @return it, without userinfo
     */
    static URI withoutUserInfo(URI uri) {
        if (uri.getRawUserInfo() == null) {
            return uri;
        }
        StringBuilder s = new StringBuilder(uri.getScheme()).append("://").append(uri.getHost());
        if (uri.getPort() >= 0) {
            s.append(':').append(uri.getPort());
        }
        if (uri.getRawPath() != null) {
            s.append(uri.getRawPath());
        }
        if (uri.getRawQuery() != null) {
            s.append('?').append(uri.getRawQuery());
        }
        return URI.create(s.toString());
    }

    private HttpRequest build(UpstreamRequest request, boolean whole) {
        HttpRequest.Builder b = HttpRequest.newBuilder(withoutUserInfo(request.uri()))
                .version(HttpClient.Version.HTTP_1_1)
                // a whole answer's headers are awaited within its deadline too (issue 28)
                .timeout(whole ? buffers.watch().headersWait(request.timeout()) : request.timeout());
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
}
