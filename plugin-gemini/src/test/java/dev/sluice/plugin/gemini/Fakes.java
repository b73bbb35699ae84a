package dev.sluice.plugin.gemini;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** In-memory stand-ins for the runtime's HTTP client, and golden-file access. */
final class Fakes {

    private Fakes() {
    }

    /** Reads a golden file next to the tests ({@code golden/<name>}). */
    static String golden(String name) {
        try (InputStream in = Fakes.class.getResourceAsStream("golden/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no golden file " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ids that count, so golden output is stable: {@code resp-1}, {@code call_1}, {@code call_2} … */
    static final class CountingIds implements Ids {
        private int responses;
        private int calls;

        @Override
        public String responseId() {
            return "resp-" + ++responses;
        }

        @Override
        public String toolCallId() {
            return "call_" + ++calls;
        }
    }

    /**
     * A body delivered in segments, one per read (as a network stream delivers packets), that
     * records how far it was read and whether it reached EOF.
     */
    static final class SegmentedBody extends InputStream {
        private final List<byte[]> segments;
        private int segment;
        private int offset;
        private boolean eofSeen;
        private IOException failAtEnd;

        SegmentedBody(List<String> parts) {
            segments = new ArrayList<>();
            for (String p : parts) {
                segments.add(p.getBytes(StandardCharsets.UTF_8));
            }
        }

        /** Makes the read after the last segment fail instead of reporting EOF (a reset connection). */
        SegmentedBody failingAtEnd(IOException e) {
            failAtEnd = e;
            return this;
        }

        int segmentsDelivered() {
            return segment + (offset > 0 ? 1 : 0);
        }

        int segmentCount() {
            return segments.size();
        }

        boolean eofSeen() {
            return eofSeen;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (segment >= segments.size()) {
                if (failAtEnd != null) {
                    throw failAtEnd;
                }
                eofSeen = true;
                return -1;
            }
            byte[] s = segments.get(segment);
            int n = Math.min(len, s.length - offset);
            System.arraycopy(s, offset, b, off, n);
            offset += n;
            if (offset == s.length) {
                segment++;
                offset = 0;
            }
            return n;
        }

        @Override
        public int available() {
            return 0; // like a socket with nothing buffered: readers must not wait for more
        }
    }

    /** An upstream response over a {@link SegmentedBody}. */
    static final class FakeResponse implements UpstreamResponse {
        private final ResponseHead head;
        private final SegmentedBody body;
        private int closeCount;
        private boolean eofBeforeClose;

        FakeResponse(int status, Map<String, List<String>> headers, SegmentedBody body) {
            this.head = new ResponseHead(status, headers);
            this.body = body;
        }

        static FakeResponse of(int status, String body) {
            return new FakeResponse(status, Map.of("content-type", List.of("application/json")),
                    new SegmentedBody(List.of(body)));
        }

        static FakeResponse sse(List<String> events) {
            return new FakeResponse(200, Map.of("content-type", List.of("text/event-stream")), new SegmentedBody(events));
        }

        SegmentedBody segmentedBody() {
            return body;
        }

        boolean closed() {
            return closeCount > 0;
        }

        int closeCount() {
            return closeCount;
        }

        /** Whether the body had been read to EOF when close() was first called (the connection is reusable). */
        boolean eofBeforeClose() {
            return eofBeforeClose;
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
            if (closeCount++ == 0) {
                eofBeforeClose = body.eofSeen();
            }
        }
    }

    /** An upstream client that records requests and answers with a prepared response (or fails). */
    static final class FakeHttp implements UpstreamHttp {
        final List<UpstreamRequest> requests = new ArrayList<>();
        private final UpstreamResponse response;
        private final IOException failure;

        FakeHttp(UpstreamResponse response) {
            this.response = response;
            this.failure = null;
        }

        FakeHttp(IOException failure) {
            this.response = null;
            this.failure = failure;
        }

        UpstreamRequest only() {
            if (requests.size() != 1) {
                throw new AssertionError("expected one request, got " + requests.size());
            }
            return requests.get(0);
        }

        @Override
        public UpstreamResponse send(UpstreamRequest request) throws IOException {
            requests.add(request);
            if (failure != null) {
                throw failure;
            }
            return response;
        }
    }
}
