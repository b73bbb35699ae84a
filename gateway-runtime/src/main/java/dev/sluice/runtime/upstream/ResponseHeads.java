package dev.sluice.runtime.upstream;

import java.io.IOException;
import java.net.ProtocolException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an HTTP/1.1 response head from a connection and decides its body's framing (RFC 9112 §6):
 * interim {@code 1xx} answers are skipped; {@code HEAD}, {@code 204} and {@code 304} have no body;
 * {@code Transfer-Encoding: chunked} wins over {@code Content-Length}; with neither the body ends at
 * EOF. Header names are kept as the upstream sent them ({@link dev.sluice.api.upstream.ResponseHead}
 * lower-cases them), each value of a repeated header kept in order.
 */
final class ResponseHeads {

    /** The most header lines of one head. */
    static final int MAX_HEADER_LINES = 512;

    /** Body length of a chunked body. */
    static final long CHUNKED = -1;
    /** Body length of a body that ends at EOF. */
    static final long TO_EOF = -2;

    private ResponseHeads() {
    }

    /**
     * A final response head.
     *
     * @param status the status
     * @param headers the headers, names as sent
     * @param bodyLength the body's length, 0 for none, {@link #CHUNKED} or {@link #TO_EOF}
     * @param keepAlive whether the connection may serve another exchange after the body (neither side said close)
     */
    record Head(int status, Map<String, List<String>> headers, long bodyLength, boolean keepAlive) {
    }

    /**
     * Reads the head of the answer to the request just written.
     *
     * @param c the connection
     * @param headRequest whether the request was a {@code HEAD} (no body, whatever the headers say)
     * @return the final head
     * @throws java.io.EOFException when the connection closed before the head was complete
     * @throws ProtocolException when the head is not HTTP/1.x
     */
    static Head read(UpstreamConnection c, boolean headRequest) throws IOException {
        for (;;) {
            String statusLine = c.readLine();
            if (statusLine == null) {
                throw new java.io.EOFException("upstream connection closed before the response headers");
            }
            boolean http10 = statusLine.startsWith("HTTP/1.0 ");
            if (!(http10 || statusLine.startsWith("HTTP/1.1 ")) || statusLine.length() < 12) {
                throw new ProtocolException("the upstream's answer is not HTTP/1.x");
            }
            int status = status(statusLine);
            Map<String, List<String>> headers = new HashMap<>();
            long length = TO_EOF;
            boolean chunked = false;
            boolean close = http10;
            boolean lengthSeen = false;
            boolean codingSeen = false;
            for (int lines = 0; ; lines++) {
                String line = c.readLine();
                if (line == null) {
                    throw new java.io.EOFException("upstream connection closed inside the response headers");
                }
                if (line.isEmpty()) {
                    break;
                }
                if (lines == MAX_HEADER_LINES) {
                    throw new ProtocolException("the upstream's response has more than " + MAX_HEADER_LINES + " header lines");
                }
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    throw new ProtocolException("the upstream sent a malformed response header line");
                }
                String name = line.substring(0, colon);
                String value = line.substring(colon + 1).strip();
                headers.computeIfAbsent(name, k -> new ArrayList<>(1)).add(value);
                if (name.equalsIgnoreCase("content-length")) {
                    long l = contentLength(value);
                    if (lengthSeen && l != length) {
                        throw new ProtocolException("the upstream sent conflicting Content-Length headers");
                    }
                    lengthSeen = true;
                    length = l;
                } else if (name.equalsIgnoreCase("transfer-encoding")) {
                    codingSeen = true;
                    chunked = lastCodingIsChunked(value);
                    if (!chunked) {
                        close = true;
                    }
                } else if (name.equalsIgnoreCase("connection")) {
                    if (hasToken(value, "close")) {
                        close = true;
                    } else if (http10 && hasToken(value, "keep-alive")) {
                        close = false;
                    }
                }
            }
            if (status >= 100 && status < 200 && status != 101) {
                continue; // interim: the final answer follows on the same connection
            }
            if (headRequest || status == 204 || status == 304 || status == 101) {
                return new Head(status, headers, 0, !close && status != 101);
            }
            if (chunked) {
                // with both, chunked framing wins and the connection is not trusted further (RFC 9112 §6.3)
                return new Head(status, headers, CHUNKED, !close && !lengthSeen);
            }
            if (lengthSeen && !codingSeen) {
                return new Head(status, headers, length, !close);
            }
            return new Head(status, headers, TO_EOF, false);
        }
    }

    private static int status(String line) throws ProtocolException {
        int s = 0;
        for (int i = 9; i < 12; i++) {
            char ch = line.charAt(i);
            if (ch < '0' || ch > '9') {
                throw new ProtocolException("the upstream's status line has no status code");
            }
            s = s * 10 + (ch - '0');
        }
        if (line.length() > 12 && line.charAt(12) != ' ') {
            throw new ProtocolException("the upstream's status line has no status code");
        }
        return s;
    }

    private static long contentLength(String value) throws ProtocolException {
        if (value.isEmpty() || value.length() > 18) {
            throw new ProtocolException("the upstream sent an invalid Content-Length");
        }
        long l = 0;
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch < '0' || ch > '9') {
                throw new ProtocolException("the upstream sent an invalid Content-Length");
            }
            l = l * 10 + (ch - '0');
        }
        return l;
    }

    private static boolean lastCodingIsChunked(String value) {
        int comma = value.lastIndexOf(',');
        return value.substring(comma + 1).strip().equalsIgnoreCase("chunked");
    }

    private static boolean hasToken(String value, String token) {
        for (String t : value.split(",")) {
            if (t.strip().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }
}
