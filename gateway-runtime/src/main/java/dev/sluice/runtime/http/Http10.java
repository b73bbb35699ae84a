package dev.sluice.runtime.http;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * HTTP/1.0 clients (issue 19, defect 6: nginx's default {@code proxy_http_version 1.0}, {@code ab})
 * served by Helidon's HTTP/1.1 connection: the request line is rewritten to HTTP/1.1 with
 * {@code Connection: close} (and a {@code Host} when the client sent none), and the answer is
 * written back as HTTP/1.0 — chunked bodies de-chunked, the body ending when the connection closes,
 * interim 1xx answers dropped. One request per connection: keep-alive is not offered to HTTP/1.0.
 * Request lines naming any other version are answered {@code 505} in the error envelope.
 */
final class Http10 {

    /** What the first line of a connection says. */
    enum Version {
        /** HTTP/1.1 (or a line Helidon itself must judge): served unchanged. */
        HTTP_1_1,
        /** HTTP/1.0: rewritten. */
        HTTP_1_0,
        /** Another version written as text (HTTP/2.0, HTTP/1.2, HTTP/0.9): 505. */
        OTHER
    }

    /** How many header bytes of an HTTP/1.0 request are gathered to rewrite; past it the rest goes through as sent. */
    static final int MAX_HEAD = 64 * 1024;

    private static final byte[] VERSION_NOT_SUPPORTED = ("HTTP/1.1 505 HTTP Version Not Supported\r\n"
            + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s").formatted(
                    envelope().length(), envelope()).getBytes(StandardCharsets.US_ASCII);

    private Http10() {
    }

    private static String envelope() {
        return "{\"error\":{\"message\":\"HTTP version not supported: Sluice speaks HTTP/1.1 and HTTP/1.0.\","
                + "\"type\":\"server_error\",\"code\":\"http_version_not_supported\",\"param\":null}}";
    }

    /** The 505 answer, whole. */
    static byte[] versionNotSupported() {
        return VERSION_NOT_SUPPORTED.clone();
    }

    /**
     * The version the request line in {@code head} names.
     *
     * @param head the connection's first bytes
     * @param lineEnd index of the first LF
     * @return the version
     */
    static Version version(byte[] head, int lineEnd) {
        int end = lineEnd > 0 && head[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
        int space = -1;
        for (int i = end - 1; i >= 0; i--) {
            if (head[i] == ' ') {
                space = i;
                break;
            }
        }
        if (space < 0) {
            return Version.HTTP_1_1;
        }
        String v = new String(head, space + 1, end - space - 1, StandardCharsets.US_ASCII);
        if (v.equals("HTTP/1.1")) {
            return Version.HTTP_1_1;
        }
        if (v.equals("HTTP/1.0")) {
            return Version.HTTP_1_0;
        }
        return v.matches("HTTP/[0-9]+(\\.[0-9]+)?") ? Version.OTHER : Version.HTTP_1_1;
    }

    /** Index just past the blank line that ends the header block, or -1. */
    static int headEnd(byte[] b, int len) {
        for (int i = 0; i < len; i++) {
            if (b[i] == '\n' && ((i + 1 < len && b[i + 1] == '\n')
                    || (i + 2 < len && b[i + 1] == '\r' && b[i + 2] == '\n'))) {
                return b[i + 1] == '\n' ? i + 2 : i + 3;
            }
        }
        return -1;
    }

    /**
     * The HTTP/1.0 request rewritten as HTTP/1.1: version, {@code Connection: close}, a
     * {@code Host} when missing. Bytes after the header block (the body) are kept as they are.
     *
     * @param bytes what the client sent so far (the whole header block, or {@link #MAX_HEAD} bytes of it)
     * @param localHost the {@code Host} to add when the client sent none
     * @return the bytes Helidon reads
     */
    static byte[] rewriteRequest(byte[] bytes, String localHost) {
        int end = headEnd(bytes, bytes.length);
        int headLen = end < 0 ? bytes.length : end;
        String head = new String(bytes, 0, headLen, StandardCharsets.ISO_8859_1);
        String[] lines = head.split("\r?\n", -1);
        StringBuilder out = new StringBuilder(headLen + 64);
        String requestLine = lines[0];
        out.append(requestLine, 0, requestLine.length() - "HTTP/1.0".length()).append("HTTP/1.1\r\n");
        boolean host = false;
        int last = end < 0 ? lines.length : lines.length - 2; // the blank line and what follows it
        for (int i = 1; i < last; i++) {
            String line = lines[i];
            String name = line.indexOf(':') > 0 ? line.substring(0, line.indexOf(':')).trim().toLowerCase(Locale.ROOT) : "";
            if (name.equals("connection") || name.equals("keep-alive")) {
                continue;
            }
            host |= name.equals("host");
            out.append(line);
            if (i < lines.length - 1) {
                out.append("\r\n");
            }
        }
        if (end >= 0) {
            if (!host) {
                out.append("Host: ").append(localHost).append("\r\n");
            }
            out.append("Connection: close\r\n\r\n");
        }
        byte[] rewritten = out.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[rewritten.length + bytes.length - headLen];
        System.arraycopy(rewritten, 0, all, 0, rewritten.length);
        System.arraycopy(bytes, headLen, all, rewritten.length, bytes.length - headLen);
        return all;
    }

    /** A connection's writer: Helidon's own, until the connection turns out to be HTTP/1.0. */
    static final class ConnectionWriter implements DataWriter {

        private final DataWriter original;
        private volatile DataWriter target;

        ConnectionWriter(DataWriter original) {
            this.original = original;
            this.target = original;
        }

        /**
         * From now on Helidon's HTTP/1.1 answer is written as HTTP/1.0.
         *
         * @param head whether the request is a HEAD (the answer has no body whatever its headers say)
         */
        void http10(boolean head) {
            target = new ResponseWriter(original, head);
        }

        @Override
        public void write(BufferData... buffers) {
            target.write(buffers);
        }

        @Override
        public void write(BufferData buffer) {
            target.write(buffer);
        }

        @Override
        public void writeNow(BufferData... buffers) {
            target.writeNow(buffers);
        }

        @Override
        public void writeNow(BufferData buffer) {
            target.writeNow(buffer);
        }

        @Override
        public void flush() {
            target.flush();
        }

        @Override
        public void close() {
            target.close();
        }
    }

    /** Whether the request line is a HEAD request. */
    static boolean isHead(byte[] bytes) {
        return bytes.length > 5 && new String(bytes, 0, 5, StandardCharsets.US_ASCII).equals("HEAD ");
    }

    /** Converts the byte stream of HTTP/1.1 answers into one HTTP/1.0 answer. */
    private static final class ResponseWriter implements DataWriter {

        private enum State { HEAD, PLAIN, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILER, DONE }

        private final DataWriter delegate;
        private final boolean headRequest;
        private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
        private State state = State.HEAD;
        private long chunkLeft;
        private byte prev;
        private byte prev2;

        ResponseWriter(DataWriter delegate, boolean headRequest) {
            this.delegate = delegate;
            this.headRequest = headRequest;
        }

        @Override
        public void write(BufferData... buffers) {
            for (BufferData b : buffers) {
                write(b);
            }
        }

        @Override
        public void write(BufferData buffer) {
            byte[] out = convert(buffer.readBytes());
            if (out.length > 0) {
                delegate.write(BufferData.create(out));
            }
        }

        @Override
        public void writeNow(BufferData... buffers) {
            for (BufferData b : buffers) {
                writeNow(b);
            }
        }

        @Override
        public void writeNow(BufferData buffer) {
            byte[] out = convert(buffer.readBytes());
            if (out.length > 0) {
                delegate.writeNow(BufferData.create(out));
            }
        }

        @Override
        public void flush() {
            delegate.flush();
        }

        @Override
        public void close() {
            delegate.close();
        }

        private synchronized byte[] convert(byte[] in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
            int i = 0;
            while (i < in.length && state != State.DONE) {
                switch (state) {
                    case HEAD -> {
                        byte c = in[i++];
                        pending.write(c);
                        boolean end = c == '\n' && (prev == '\n' || (prev == '\r' && prev2 == '\n'));
                        prev2 = prev;
                        prev = c;
                        if (end) {
                            String h = pending.toString(StandardCharsets.ISO_8859_1);
                            pending.reset();
                            prev = 0;
                            prev2 = 0;
                            head(h, out);
                        }
                    }
                    case PLAIN -> {
                        out.write(in, i, in.length - i);
                        i = in.length;
                    }
                    case CHUNK_SIZE, TRAILER -> {
                        byte c = in[i++];
                        if (c != '\n') {
                            pending.write(c);
                            continue;
                        }
                        String line = pending.toString(StandardCharsets.ISO_8859_1).trim();
                        pending.reset();
                        if (state == State.TRAILER) {
                            state = line.isEmpty() ? State.DONE : State.TRAILER;
                        } else {
                            int semi = line.indexOf(';');
                            chunkLeft = Long.parseLong(semi < 0 ? line : line.substring(0, semi).trim(), 16);
                            state = chunkLeft == 0 ? State.TRAILER : State.CHUNK_DATA;
                        }
                    }
                    case CHUNK_DATA -> {
                        int n = (int) Math.min(chunkLeft, in.length - i);
                        out.write(in, i, n);
                        i += n;
                        chunkLeft -= n;
                        if (chunkLeft == 0) {
                            state = State.CHUNK_END;
                        }
                    }
                    case CHUNK_END -> {
                        if (in[i++] == '\n') {
                            state = State.CHUNK_SIZE;
                        }
                    }
                    default -> i = in.length;
                }
            }
            return out.toByteArray();
        }

        /** Rewrites one answer's header block; an interim 1xx answer is dropped. */
        private void head(String head, ByteArrayOutputStream out) {
            String[] lines = head.split("\r?\n");
            String status = lines[0];
            int code = status.length() >= 12 ? Integer.parseInt(status.substring(9, 12)) : 500;
            if (code >= 100 && code < 200) {
                state = State.HEAD;
                return;
            }
            StringBuilder b = new StringBuilder(head.length());
            b.append("HTTP/1.0").append(status.substring(status.indexOf(' '))).append("\r\n");
            boolean chunked = false;
            for (int i = 1; i < lines.length; i++) {
                String line = lines[i];
                String name = line.indexOf(':') > 0 ? line.substring(0, line.indexOf(':')).trim().toLowerCase(Locale.ROOT) : "";
                if (name.equals("transfer-encoding")) {
                    chunked |= line.toLowerCase(Locale.ROOT).contains("chunked");
                    continue;
                }
                if (name.equals("connection") || name.isEmpty()) {
                    continue;
                }
                b.append(line).append("\r\n");
            }
            b.append("Connection: close\r\n\r\n");
            out.writeBytes(b.toString().getBytes(StandardCharsets.ISO_8859_1));
            boolean noBody = headRequest || code == 204 || code == 304;
            state = noBody ? State.DONE : chunked ? State.CHUNK_SIZE : State.PLAIN;
        }
    }
}
