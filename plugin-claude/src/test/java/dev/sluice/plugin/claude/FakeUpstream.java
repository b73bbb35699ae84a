package dev.sluice.plugin.claude;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An in-memory upstream: records every request (thread-safe) and answers with a scripted response
 * or failure; a handler registered for a request path answers requests to that path instead.
 */
final class FakeUpstream implements UpstreamHttp {

    /** Answers one request to a path; may throw to simulate a transport failure. */
    @FunctionalInterface
    interface Handler {
        FakeResponse handle(UpstreamRequest request) throws IOException;
    }

    final List<UpstreamRequest> requests = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
    private volatile FakeResponse response;
    private volatile IOException failure;

    FakeUpstream answer(FakeResponse r) {
        this.response = r;
        this.failure = null;
        return this;
    }

    FakeUpstream answer(int status, Map<String, List<String>> headers, String body) {
        return answer(new FakeResponse(status, headers, body));
    }

    FakeUpstream fail(IOException e) {
        this.failure = e;
        this.response = null;
        return this;
    }

    /** Answers requests whose URI path is {@code path} with the handler (each call a fresh response). */
    FakeUpstream on(String path, Handler handler) {
        handlers.put(path, handler);
        return this;
    }

    /** The recorded requests to a path, in order. */
    List<UpstreamRequest> to(String path) {
        synchronized (requests) {
            return requests.stream().filter(r -> path.equals(r.uri().getPath())).toList();
        }
    }

    UpstreamRequest last() {
        synchronized (requests) {
            return requests.get(requests.size() - 1);
        }
    }

    String lastBody() {
        return new String(last().body(), StandardCharsets.UTF_8);
    }

    @Override
    public UpstreamResponse send(UpstreamRequest request) throws IOException {
        requests.add(request);
        Handler handler = handlers.get(request.uri().getPath());
        if (handler != null) {
            return handler.handle(request);
        }
        if (failure != null) {
            throw failure;
        }
        return response;
    }

    /** A response whose body is a given stream; remembers whether it was closed and how much was read. */
    static final class FakeResponse implements UpstreamResponse {
        private final ResponseHead head;
        private final CountingStream body;
        volatile boolean closed;

        FakeResponse(int status, Map<String, List<String>> headers, InputStream body) {
            this.head = new ResponseHead(status, headers);
            this.body = new CountingStream(body);
        }

        FakeResponse(int status, Map<String, List<String>> headers, String body) {
            this(status, headers, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
        }

        boolean bodyAtEnd() {
            return body.eof;
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
            closed = true;
        }
    }

    /** Notes when the wrapped stream reported its end. */
    static final class CountingStream extends InputStream {
        private final InputStream in;
        boolean eof;

        CountingStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            eof |= b < 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            eof |= n < 0;
            return n;
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }
    }
}
