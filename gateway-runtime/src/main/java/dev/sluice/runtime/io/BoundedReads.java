package dev.sluice.runtime.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads whole bodies with a size bound and without over-allocating. {@code InputStream.readNBytes(int)}
 * allocates in 16 KiB steps whatever the body's size; on the request path that was a fifth of all
 * allocation (bench/run.sh with JFR), so bodies with a declared length are read into an array of
 * exactly that size.
 */
public final class BoundedReads {

    private BoundedReads() {
    }

    /**
     * Reads a body of at most {@code max} bytes; one byte more tells the caller it was too large.
     *
     * @param in the body
     * @param declaredLength the Content-Length, or -1 when unknown (chunked)
     * @param max the most bytes the caller accepts
     * @return up to {@code max + 1} bytes: more than {@code max} means the body is too large
     * @throws IOException on a read failure
     */
    public static byte[] read(InputStream in, long declaredLength, long max) throws IOException {
        int limit = (int) Math.min(Integer.MAX_VALUE - 8, max + 1);
        if (declaredLength >= 0 && declaredLength < limit) {
            byte[] exact = new byte[(int) declaredLength];
            int n = in.readNBytes(exact, 0, exact.length);
            if (n < exact.length) {
                return Arrays.copyOf(exact, n);
            }
            // read on to the end of the stream: HTTP clients give a keep-alive connection back to
            // their pool only once the body was read to EOF
            int next = in.read();
            if (next < 0) {
                return exact;
            }
            ByteArrayOutputStream more = new ByteArrayOutputStream(exact.length + 1024);
            more.write(exact);
            more.write(next);
            return readRest(in, more, limit);
        }
        return readRest(in, new ByteArrayOutputStream(1024), limit);
    }

    private static byte[] readRest(InputStream in, ByteArrayOutputStream out, int limit) throws IOException {
        byte[] buf = new byte[4096];
        int n;
        while (out.size() < limit && (n = in.read(buf, 0, Math.min(buf.length, limit - out.size()))) > 0) {
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }
}
