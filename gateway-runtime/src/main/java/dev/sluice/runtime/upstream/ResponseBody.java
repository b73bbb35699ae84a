package dev.sluice.runtime.upstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;

/**
 * A response body read off its connection by its framing: {@code Content-Length}, chunked (decoded,
 * trailers skipped) or to EOF. Each read returns what the upstream sent so far (one socket read at
 * most), so a stream relays as it arrives. When the body ends (its last byte, or the chunked
 * terminator) its response is told at once, which may give the connection back to the pool; a
 * connection that closes before then fails the read as a closed connection. Read by one thread.
 */
final class ResponseBody extends InputStream {

    private final UpstreamConnection c;
    private final SocketResponse owner;
    /** Bytes left of a sized body, or of the current chunk; -1 when a chunk size line is due. */
    private long remaining;
    private final boolean chunked;
    private final boolean toEof;
    /** Whether a chunk's data ended and its CRLF is still to be read. */
    private boolean chunkEndDue;
    private boolean ended;

    /**
     * @param c the connection, its head read
     * @param owner told when the body ends
     * @param length the body's length, 0 for none, {@link ResponseHeads#CHUNKED} or {@link ResponseHeads#TO_EOF}
     */
    ResponseBody(UpstreamConnection c, SocketResponse owner, long length) {
        this.c = c;
        this.owner = owner;
        this.chunked = length == ResponseHeads.CHUNKED;
        this.toEof = length == ResponseHeads.TO_EOF;
        this.remaining = chunked ? -1 : length;
    }

    /** @return whether the body ended already (nothing to read: the response may release its connection) */
    boolean empty() {
        if (!chunked && !toEof && remaining == 0) {
            ended = true;
        }
        return ended;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (ended) {
            return -1;
        }
        if (len == 0) {
            return 0;
        }
        if (toEof) {
            int n = c.read(b, off, len);
            if (n < 0) {
                end();
            }
            return n;
        }
        if (chunked && remaining <= 0 && !nextChunk()) {
            return -1;
        }
        int n = c.read(b, off, (int) Math.min(len, remaining));
        if (n < 0) {
            throw new EOFException("upstream connection closed before the end of the response body");
        }
        remaining -= n;
        if (remaining == 0) {
            if (chunked) {
                chunkEndDue = true;
            } else {
                end();
            }
        }
        return n;
    }

    /** Reads up to the next chunk's data; false at the last chunk (the body ended). */
    private boolean nextChunk() throws IOException {
        if (chunkEndDue) {
            String crlf = line();
            if (!crlf.isEmpty()) {
                throw new ProtocolException("the upstream's chunked body has no line end after a chunk");
            }
            chunkEndDue = false;
        }
        long size = chunkSize(line());
        if (size > 0) {
            remaining = size;
            return true;
        }
        // the last chunk: trailers up to an empty line are skipped
        while (!line().isEmpty()) {
            // a trailer field
        }
        end();
        return false;
    }

    private String line() throws IOException {
        String l = c.readLine();
        if (l == null) {
            throw new EOFException("upstream connection closed inside a chunked response body");
        }
        return l;
    }

    private static long chunkSize(String line) throws ProtocolException {
        int end = line.indexOf(';'); // chunk extensions are ignored
        String hex = (end < 0 ? line : line.substring(0, end)).strip();
        if (hex.isEmpty() || hex.length() > 15) {
            throw new ProtocolException("the upstream sent an invalid chunk size");
        }
        long size = 0;
        for (int i = 0; i < hex.length(); i++) {
            int d = Character.digit(hex.charAt(i), 16);
            if (d < 0) {
                throw new ProtocolException("the upstream sent an invalid chunk size");
            }
            size = size * 16 + d;
        }
        return size;
    }

    private void end() {
        ended = true;
        owner.bodyEnded();
    }

    @Override
    public int available() throws IOException {
        if (ended) {
            return 0;
        }
        int a = c.available();
        return toEof ? a : (int) Math.min(a, Math.max(remaining, 0));
    }

    /** Closes the response: its connection goes back to the pool only if the body had ended. */
    @Override
    public void close() {
        owner.close();
    }
}
