package dev.sluice.runtime.upstream;

import dev.sluice.api.upstream.UpstreamRequest;
import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * An upstream request as the one byte array {@link SocketUpstreamHttp} writes: request line in
 * origin form, {@code Host} from the URI (its userinfo never sent, issue 29), the request's own
 * headers, {@code Content-Length} for a body (and for an empty one of a method other than
 * {@code GET}/{@code HEAD}), then the body. Nothing else is added: no {@code User-Agent} unless the
 * request has one, no {@code Proxy-Connection} (issue 32). Headers the connection itself governs
 * ({@code Host}, {@code Content-Length}, {@code Transfer-Encoding}, {@code Connection},
 * {@code Expect}, {@code Upgrade}) are not taken from the request, as on the route client.
 */
final class RequestBytes {

    private RequestBytes() {
    }

    /**
     * Encodes a request.
     *
     * @param request the request
     * @param origin its URI's origin
     * @return the bytes
     * @throws IOException when a header name or value would break the head (CR, LF, NUL; the value is never named)
     */
    static byte[] of(UpstreamRequest request, Origin origin) throws IOException {
        URI uri = request.uri();
        String path = uri.getRawPath();
        String query = uri.getRawQuery();
        String method = request.method();
        byte[] body = request.body();
        boolean length = body.length > 0 || !(method.equals("GET") || method.equals("HEAD"));
        String port = uri.getPort() >= 0 ? Integer.toString(uri.getPort()) : null;
        String contentLength = length ? Integer.toString(body.length) : null;

        int size = method.length() + 1 + (path == null || path.isEmpty() ? 1 : path.length())
                + (query == null ? 0 : 1 + query.length()) + " HTTP/1.1\r\nHost: ".length() + origin.host().length()
                + (port == null ? 0 : 1 + port.length()) + 2;
        for (Map.Entry<String, String> h : request.headers().entrySet()) {
            if (!governed(h.getKey())) {
                size += h.getKey().length() + 2 + h.getValue().length() + 2;
            }
        }
        size += (contentLength == null ? 0 : "Content-Length: ".length() + contentLength.length() + 2) + 2 + body.length;

        byte[] out = new byte[size];
        int at = put(out, 0, method);
        out[at++] = ' ';
        at = put(out, at, path == null || path.isEmpty() ? "/" : path);
        if (query != null) {
            out[at++] = '?';
            at = put(out, at, query);
        }
        at = put(out, at, " HTTP/1.1\r\nHost: ");
        at = put(out, at, origin.host());
        if (port != null) {
            out[at++] = ':';
            at = put(out, at, port);
        }
        at = crlf(out, at);
        for (Map.Entry<String, String> h : request.headers().entrySet()) {
            if (!governed(h.getKey())) {
                at = header(out, at, h.getKey(), h.getValue());
            }
        }
        if (contentLength != null) {
            at = put(out, at, "Content-Length: ");
            at = put(out, at, contentLength);
            at = crlf(out, at);
        }
        at = crlf(out, at);
        System.arraycopy(body, 0, out, at, body.length);
        return out;
    }

    /** Whether the connection governs the header, so the request's own is not sent. */
    static boolean governed(String name) {
        return switch (name.length()) {
            case 4 -> name.equalsIgnoreCase("host");
            case 6 -> name.equalsIgnoreCase("expect");
            case 7 -> name.equalsIgnoreCase("upgrade");
            case 10 -> name.equalsIgnoreCase("connection");
            case 14 -> name.equalsIgnoreCase("content-length");
            case 17 -> name.equalsIgnoreCase("transfer-encoding");
            default -> false;
        };
    }

    private static int header(byte[] out, int at, String name, String value) throws IOException {
        if (name.isEmpty()) {
            throw new java.net.ProtocolException("an upstream request header has an empty name");
        }
        for (int i = 0; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch <= ' ' || ch == ':' || ch >= 0x7f) {
                throw new java.net.ProtocolException("the upstream request header name '" + safe(name) + "' is not a token");
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch == '\r' || ch == '\n' || ch == 0) {
                throw new java.net.ProtocolException("the value of upstream request header " + name + " holds a line break or NUL");
            }
        }
        at = put(out, at, name);
        out[at++] = ':';
        out[at++] = ' ';
        at = put(out, at, value);
        return crlf(out, at);
    }

    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9-]", "?");
    }

    /** Puts ISO-8859-1 text (a character past it as {@code ?}). */
    private static int put(byte[] out, int at, String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char ch = s.charAt(i);
            out[at++] = ch <= 0xff ? (byte) ch : (byte) '?';
        }
        return at;
    }

    private static int crlf(byte[] out, int at) {
        out[at] = '\r';
        out[at + 1] = '\n';
        return at + 2;
    }
}
