package dev.sluice.distribution;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection driven by hand, for what a client library hides: closing the socket
 * in the middle of a request, several requests on one kept-alive connection, pipelining.
 */
final class RawHttpConnection implements AutoCloseable {

    /** A response read off the connection. */
    record Response(int status, Map<String, String> headers, String body) {
    }

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    RawHttpConnection(URI base) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            socket.setSoTimeout(20_000);
            out = socket.getOutputStream();
            in = socket.getInputStream();
            host = base.getHost() + ":" + base.getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a JSON POST; does not wait for the answer. */
    RawHttpConnection post(String path, String bearer, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + bearer
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
        try {
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Reads the next response (Content-Length or chunked). */
    Response read() {
        try {
            String status = line();
            int code = Integer.parseInt(status.split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (String l = line(); !l.isEmpty(); l = line()) {
                int colon = l.indexOf(':');
                headers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                for (int size = Integer.parseInt(line().trim(), 16); size > 0; size = Integer.parseInt(line().trim(), 16)) {
                    body.write(in.readNBytes(size));
                    line();
                }
                line();
            } else {
                body.write(in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0"))));
            }
            return new Response(code, headers, body.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed after: " + sb);
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
