package dev.sluice.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;

/** A bare socket client, for what HttpClient hides: connection reuse, raw bytes, chunks, resets. */
final class RawClient implements AutoCloseable {

    final Socket socket;
    final InputStream in;
    private final OutputStream out;
    private final StringBuilder received = new StringBuilder();

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    void send(String request) throws IOException {
        out.write(request.getBytes(UTF_8));
        out.flush();
    }

    /** Sets how long a read may block before it fails with a {@link java.net.SocketTimeoutException}. */
    void readTimeout(Duration timeout) throws IOException {
        socket.setSoTimeout(Math.toIntExact(timeout.toMillis()));
    }

    /** Reads a Content-Length response and returns it whole. */
    String readResponse() throws IOException {
        String head = readUntil("\r\n\r\n");
        int at = head.indexOf("Content-Length: ") + "Content-Length: ".length();
        int length = Integer.parseInt(head.substring(at, head.indexOf("\r\n", at)));
        return head + new String(in.readNBytes(length), UTF_8);
    }

    /**
     * Reads one chunk of a chunked body; returns its data as UTF-8, or null for the terminating
     * chunk (whose trailer section is consumed too).
     */
    String readChunk() throws IOException {
        String sizeLine = readUntil("\r\n");
        int size = Integer.parseInt(sizeLine.substring(0, sizeLine.length() - 2), 16);
        if (size == 0) {
            readUntil("\r\n");
            return null;
        }
        byte[] data = in.readNBytes(size);
        if (data.length < size) {
            throw new EOFException("end of stream inside a chunk");
        }
        readUntil("\r\n");
        return new String(data, UTF_8);
    }

    /** Reads byte by byte until the text ends with {@code end}; returns what was read. */
    String readUntil(String end) throws IOException {
        received.setLength(0);
        while (received.length() < end.length() || !received.substring(received.length() - end.length()).equals(end)) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("end of stream before " + end.replace("\r\n", "CRLF"));
            }
            received.append((char) b);
        }
        return received.toString();
    }

    String readUntilEnd() throws IOException {
        return new String(in.readAllBytes(), UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
