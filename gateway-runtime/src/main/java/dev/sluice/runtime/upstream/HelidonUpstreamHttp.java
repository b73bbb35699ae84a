package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webclient.api.HttpClientRequest;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.ClientRequestBase;
import io.helidon.webclient.api.Proxy;
import io.helidon.webclient.api.WebClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link UpstreamHttp} on Helidon WebClient. Measured on these machines it was 2.4× faster than
 * {@code java.net.http.HttpClient} as a proxy client, and its response stream yields each
 * upstream chunk as it arrives, so SSE relays without buffering.
 */
public final class HelidonUpstreamHttp implements UpstreamHttp {

    /** Idle keep-alive connections kept per upstream; below the concurrency it cost 20 % throughput. */
    static final int CONNECTION_CACHE_SIZE = 1024;

    /** WebClient's write buffer: none, each request goes to the socket as the one piece it is. */
    static final int WRITE_BUFFER_SIZE = 0;

    /** How WebClient words an unresolvable host (an IllegalArgumentException). */
    private static final String UNRESOLVED_HOST = "Failed to get address for host";

    private final WebClient client;
    private final dev.sluice.runtime.io.AnswerBuffers buffers;

    /**
     * Creates the client.
     *
     * @param connectTimeout connect timeout
     * @param readTimeout default read timeout (per request it is the request's own timeout)
     */
    public HelidonUpstreamHttp(Duration connectTimeout, Duration readTimeout) {
        // the runtime's own client is SocketUpstreamHttp (issue 26); this one serves tests and the plugin
        // testkit, with the default memory bounds
        this.buffers = dev.sluice.runtime.io.AnswerBuffers.DEFAULTS;
        this.client = WebClient.builder()
                .socketOptions(SocketOptions.builder()
                        .tcpNoDelay(true)
                        .connectTimeout(connectTimeout)
                        .readTimeout(readTimeout)
                        .build())
                .connectionCacheSize(CONNECTION_CACHE_SIZE)
                // a request is written in one piece already (headers and body); WebClient's own write
                // buffer only copied it, through a temporary array of the buffer's free size per write
                // (issue 26: a third of the gateway's allocation per request at c64)
                .writeBufferSize(WRITE_BUFFER_SIZE)
                .followRedirects(false)
                .sendExpectContinue(false)
                // issue 32: WebClient's default (system) proxy setting adds "Proxy-Connection: keep-alive" to every request
                // sent directly; a connection's proxy goes through its egress route's client, never this one
                .proxy(Proxy.noProxy())
                .addService(HelidonUpstreamHttp::withoutDefaultUserAgent)
                .build();
    }

    /**
     * Drops the {@code User-Agent: Helidon x.y} WebClient adds to every request that has none:
     * an upstream sees a User-Agent only when an executor (a plugin, or a connection's settings)
     * set one on purpose (issue 32). A set one is kept, whatever its value.
     */
    private static io.helidon.webclient.api.WebClientServiceResponse withoutDefaultUserAgent(
            io.helidon.webclient.spi.WebClientService.Chain chain, io.helidon.webclient.api.WebClientServiceRequest request) {
        var headers = request.headers();
        if (headers.contains(ClientRequestBase.USER_AGENT_HEADER)) {
            headers.remove(HeaderNames.USER_AGENT);
        }
        return chain.proceed(request);
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws IOException {
        long sent = System.nanoTime();
        boolean whole = BoundedResponse.wholeAnswer(request);
        try {
            HttpClientRequest r = client.method(Method.create(request.method()))
                    .uri(JdkUpstreamHttp.withoutUserInfo(request.uri()))
                    // a whole answer's headers are awaited within its deadline too (issue 28)
                    .readTimeout(whole ? buffers.watch().headersWait(request.timeout()) : request.timeout());
            for (Map.Entry<String, String> h : request.headers().entrySet()) {
                r.header(HeaderNames.create(h.getKey()), h.getValue());
            }
            HttpClientResponse res = request.body().length == 0 && request.method().equals("GET")
                    ? r.request()
                    : r.submit(request.body());
            return new Response(res, whole ? request.timeout().toMillis() : 0, sent, buffers);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (RuntimeException e) {
            throw asIo(e);
        }
    }

    static IOException asIo(RuntimeException e) {
        Throwable t = e;
        while (t != null) {
            if (t instanceof IOException io) {
                return io;
            }
            t = t.getCause();
        }
        String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (msg.startsWith(UNRESOLVED_HOST)) {
            // WebClient reports an unresolvable host as an IllegalArgumentException; it is a DNS failure
            java.net.UnknownHostException dns = new java.net.UnknownHostException(msg);
            dns.initCause(e);
            return dns;
        }
        return new IOException("upstream connection closed: " + msg, e);
    }

    private static final class Response extends BoundedResponse {
        private final HttpClientResponse res;

        Response(HttpClientResponse res, long deadlineMs, long sentNanos, dev.sluice.runtime.io.AnswerBuffers buffers) {
            super(new ResponseHead(res.status().code(), headers(res)), buffers);
            this.res = res;
            bound(new GuardedStream(res.inputStream()), deadlineMs > 0, sentNanos, deadlineMs);
        }

        private static Map<String, List<String>> headers(HttpClientResponse res) {
            Map<String, List<String>> headers = new HashMap<>();
            for (Header h : res.headers()) {
                headers.computeIfAbsent(h.name(), k -> new ArrayList<>(1)).addAll(h.allValues());
            }
            return headers;
        }

        @Override
        public void close() {
            try {
                res.close();
            } catch (RuntimeException ignored) {
                // the connection is discarded either way
            }
        }
    }

    /** Turns Helidon's unchecked read failures (reset mid-body) into IOExceptions. */
    private static final class GuardedStream extends InputStream {
        private final InputStream in;

        GuardedStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            try {
                return in.read();
            } catch (UncheckedIOException e) {
                throw e.getCause();
            } catch (RuntimeException e) {
                throw asIo(e);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return in.read(b, off, len);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            } catch (RuntimeException e) {
                throw asIo(e);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                in.close();
            } catch (RuntimeException e) {
                throw asIo(e);
            }
        }
    }
}
