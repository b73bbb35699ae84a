package dev.sluice.testkit;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One accepted connection of a {@link MockUpstream}, served by its own virtual thread: parses
 * HTTP/1.1 requests (Content-Length or chunked bodies) in a keep-alive loop and writes the
 * scripted responses. Client disconnects end the loop quietly and are reported to the latest
 * request's {@linkplain MockUpstream#awaitClientGone departure latch}.
 */
final class MockConnection implements Runnable {

    private static final System.Logger LOG = System.getLogger(MockConnection.class.getName());
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(ISO_8859_1);

    private final MockUpstream server;
    private final Socket socket;
    private final byte[] buf = new byte[16 * 1024];
    private int pos;
    private int lim;
    private InputStream in;
    private OutputStream out;
    /** The departure latch of the latest request on this connection; null before the first. */
    private CountDownLatch latestGone;
    volatile Thread thread;
    /** Requests other than {@code GET …/models} this connection carried; models ones seen. */
    private volatile int otherRequests;
    private volatile boolean carriedModels;

    MockConnection(MockUpstream server, Socket socket) {
        this.server = server;
        this.socket = socket;
    }

    /** Closes the socket, which unblocks any read or write of the serving thread. */
    void abort() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void run() {
        try (socket) {
            in = socket.getInputStream();
            out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
            boolean keepAlive = true;
            while (keepAlive && !server.isClosed()) {
                String requestLine = readLine();
                if (requestLine == null) {
                    clientGone(); // the client closed between requests
                    return;
                }
                if (requestLine.isEmpty()) {
                    continue; // a stray CRLF between requests is allowed
                }
                keepAlive = serve(requestLine);
            }
        } catch (IOException e) {
            // disconnects, resets and close() all end up here; only the client's own are reported
            if (!server.isClosed()) {
                clientGone();
            }
            LOG.log(System.Logger.Level.DEBUG, "mock upstream connection ended: {0}", e.toString());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "mock upstream connection ended: {0}", e.toString());
        } finally {
            server.unregister(this);
        }
    }

    /** Reads the rest of one request, records it, answers it; returns whether to keep the connection. */
    /** Whether this connection carried models requests and nothing else. */
    boolean modelsOnly() {
        return carriedModels && otherRequests == 0;
    }

    private boolean serve(String requestLine) throws IOException {
        int sp1 = requestLine.indexOf(' ');
        int sp2 = requestLine.lastIndexOf(' ');
        if (sp1 <= 0 || sp2 <= sp1) {
            throw new IOException("malformed request line");
        }
        String version = requestLine.substring(sp2 + 1);
        Map<String, String> headers = new HashMap<>();
        for (String line = readLine(); line != null && !line.isEmpty(); line = readLine()) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
        }
        if ("100-continue".equalsIgnoreCase(headers.get("expect"))) {
            out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(ISO_8859_1));
            out.flush();
        }
        String body = readBody(headers);
        RecordedRequest request = new RecordedRequest(requestLine.substring(0, sp1), requestLine.substring(sp1 + 1, sp2),
                headers, body, socket.getInetAddress().getHostAddress());
        if (MockUpstream.isModelsRequest(request)) {
            // a gateway's model discovery (GET {baseUrl}/models) is answered apart: it takes no scripted response
            if (!carriedModels) {
                carriedModels = true;
                server.modelsConnection(this);
            }
            server.recordModels(request);
            String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
            boolean keepAlive = version.equals("HTTP/1.0") ? connection.contains("keep-alive") : !connection.contains("close");
            return respond(server.modelsResponse(), request, keepAlive);
        }
        otherRequests++;
        latestGone = server.record(request);
        String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
        boolean keepAlive = version.equals("HTTP/1.0") ? connection.contains("keep-alive") : !connection.contains("close");
        server.answering(1);
        try {
            return respond(server.nextResponse(), request, keepAlive);
        } finally {
            server.answering(-1);
        }
    }

    private String readBody(Map<String, String> headers) throws IOException {
        String te = headers.get("transfer-encoding");
        if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int size; (size = chunkSize(readLine())) > 0; ) {
                body.write(readBytes(size));
                readLine(); // the CRLF after the chunk data
            }
            for (String trailer = readLine(); trailer != null && !trailer.isEmpty(); trailer = readLine()) {
                // trailers are ignored
            }
            return body.toString(UTF_8);
        }
        String length = headers.get("content-length");
        if (length == null) {
            return "";
        }
        try {
            return new String(readBytes(Integer.parseInt(length)), UTF_8);
        } catch (NumberFormatException e) {
            throw new IOException("bad Content-Length: " + length);
        }
    }

    private static int chunkSize(String line) throws IOException {
        if (line == null) {
            throw new IOException("end of stream inside a chunked body");
        }
        int semicolon = line.indexOf(';');
        try {
            return Integer.parseInt((semicolon < 0 ? line : line.substring(0, semicolon)).trim(), 16);
        } catch (NumberFormatException e) {
            throw new IOException("bad chunk size: " + line);
        }
    }

    private boolean respond(MockResponse r, RecordedRequest request, boolean keepAlive) throws IOException {
        if (r.action == MockResponse.Action.CHOOSE) {
            return respond(java.util.Objects.requireNonNull(r.chooser.apply(request), "the chooser returned null"), request, keepAlive);
        }
        if (r.delay.isPositive() && server.awaitClosed(r.delay)) {
            return false;
        }
        switch (r.action) {
            case HANG -> {
                await(null);
                return false;
            }
            case RESET -> {
                resetConnection();
                return false;
            }
            default -> {
                // RESPOND, RESET_AFTER_HEADERS and SCRIPT write below
            }
        }
        keepAlive &= !r.hasHeader("connection", "close");
        StringBuilder head = new StringBuilder(256).append("HTTP/1.1 ").append(r.status).append(' ')
                .append(reason(r.status)).append("\r\n");
        if (!r.hasHeader("content-type", null)) {
            head.append("Content-Type: ").append(r.contentType).append("\r\n");
        }
        for (String[] h : r.headers) {
            head.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
        if (!keepAlive) {
            head.append("Connection: close\r\n");
        }
        if (r.events == null && r.script == null) {
            byte[] body = r.body.apply(request).getBytes(UTF_8);
            out.write(head.append("Content-Length: ").append(body.length).append("\r\n\r\n").toString().getBytes(ISO_8859_1));
            out.write(body);
            out.flush();
            return keepAlive;
        }
        out.write(head.append("Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n").toString().getBytes(ISO_8859_1));
        if (r.script != null) {
            return play(r.script, keepAlive);
        }
        List<String> events = r.events.apply(request);
        for (int i = 0; i < events.size(); i++) {
            if (i > 0 && r.eventDelay.isPositive() && server.awaitClosed(r.eventDelay)) {
                return false;
            }
            writeChunk(("data: " + events.get(i) + "\n\n").getBytes(UTF_8));
        }
        if (r.action == MockResponse.Action.RESET_AFTER_HEADERS) {
            // give the event a moment to reach the client before the abort
            server.awaitClosed(Duration.ofMillis(20));
            resetConnection();
            return false;
        }
        out.write(LAST_CHUNK);
        out.flush();
        return keepAlive;
    }

    /** Plays a scripted stream after its headers; returns whether to keep the connection. */
    private boolean play(StreamScript script, boolean keepAlive) throws IOException {
        out.flush(); // the headers go out at once: a client may be timing the first event
        for (StreamScript.Step step : script.steps()) {
            switch (step) {
                case StreamScript.Step.Write write -> writeChunk(write.bytes());
                case StreamScript.Step.Pause pause -> await(pause.duration());
            }
        }
        switch (script.ending()) {
            case END -> {
                out.write(LAST_CHUNK);
                out.flush();
                return keepAlive;
            }
            case CLOSE -> {
                socket.shutdownOutput(); // a FIN, with the body's terminating chunk never sent
                return false;
            }
            case RESET -> {
                resetConnection();
                return false;
            }
            case HOLD -> {
                if (script.heartbeat() == null) {
                    await(null); // returns only by an exception: the client left or the mock closed
                    return false;
                }
                while (true) {
                    await(script.heartbeatInterval());
                    writeChunk(script.heartbeat());
                }
            }
            default -> throw new IllegalStateException("unknown ending " + script.ending());
        }
    }

    private void writeChunk(byte[] data) throws IOException {
        out.write(Integer.toHexString(data.length).getBytes(ISO_8859_1));
        out.write(CRLF);
        out.write(data);
        out.write(CRLF);
        out.flush();
    }

    /**
     * Waits this long, or forever if null, while reading the socket so that a client that leaves
     * is noticed at once: returns when the time is up, throws when the client closes or resets the
     * connection or the mock closes. Bytes that arrive meanwhile (a pipelined request) are kept
     * for the serving loop.
     */
    private void await(Duration duration) throws IOException {
        long deadline = duration == null ? 0 : System.nanoTime() + duration.toNanos();
        try {
            while (true) {
                int timeoutMillis = 0; // forever
                if (duration != null) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    // round up: waking a little late is harmless, waking early would spin
                    timeoutMillis = (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left + 999_999));
                }
                if (server.isClosed()) {
                    throw new SocketException("mock upstream closed");
                }
                compact();
                if (lim == buf.length) {
                    waitWithoutReading(duration == null ? null : Duration.ofNanos(deadline - System.nanoTime()));
                    continue;
                }
                socket.setSoTimeout(timeoutMillis);
                try {
                    int n = in.read(buf, lim, buf.length - lim);
                    if (n < 0) {
                        throw new EOFException("the client closed the connection");
                    }
                    lim += n;
                } catch (SocketTimeoutException e) {
                    // the time is up; the loop head returns
                }
            }
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(0);
            }
        }
    }

    /** The read-ahead buffer is full: wait without watching the client (only a misbehaving one gets here). */
    private void waitWithoutReading(Duration duration) throws IOException {
        if (duration == null) {
            server.awaitClose();
        } else if (!server.awaitClosed(duration)) {
            return;
        }
        throw new SocketException("mock upstream closed");
    }

    /** Reports that the client left the connection of the latest request. */
    private void clientGone() {
        if (latestGone != null) {
            latestGone.countDown();
        }
    }

    /** SO_LINGER 0 turns close() into an abortive close: the peer gets a RST, not a FIN. */
    private void resetConnection() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /** A line without its CRLF, as ISO-8859-1; null at a clean end of stream before any byte. */
    private String readLine() throws IOException {
        int start = pos;
        while (true) {
            for (int i = start; i < lim; i++) {
                if (buf[i] == '\n') {
                    int end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
                    String line = new String(buf, pos, end - pos, ISO_8859_1);
                    pos = i + 1;
                    return line;
                }
            }
            start = lim - pos;
            if (!fill()) {
                if (lim == pos) {
                    return null;
                }
                throw new IOException("end of stream inside a line");
            }
            start = pos + start;
        }
    }

    /** Reads more bytes, compacting the buffer first; false at end of stream. */
    private boolean fill() throws IOException {
        compact();
        if (lim == buf.length) {
            throw new IOException("header line longer than " + buf.length + " bytes");
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) {
            return false;
        }
        lim += n;
        return true;
    }

    /** Moves the unread bytes to the start of the buffer. */
    private void compact() {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
        }
    }

    private byte[] readBytes(int n) throws IOException {
        if (n < 0) {
            throw new IOException("negative length");
        }
        byte[] bytes = new byte[n];
        int have = Math.min(n, lim - pos);
        System.arraycopy(buf, pos, bytes, 0, have);
        pos += have;
        while (have < n) {
            int r = in.read(bytes, have, n - have);
            if (r < 0) {
                throw new IOException("end of stream inside a body");
            }
            have += r;
        }
        return bytes;
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 204 -> "No Content";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 402 -> "Payment Required";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 413 -> "Content Too Large";
            case 422 -> "Unprocessable Content";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "Status " + status;
        };
    }
}
