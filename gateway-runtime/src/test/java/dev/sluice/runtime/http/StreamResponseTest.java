package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A large stream frame reaches the server's write queue in slices (issue 29): the queue counts
 * writes, not bytes, so whole 4 MiB events waiting in it for a slow client exhausted the heap.
 */
class StreamResponseTest {

    /** Records the size of every write and every flush. */
    private static final class Writes extends ByteArrayOutputStream {
        final List<Integer> sizes = new ArrayList<>();
        final List<byte[]> arrays = new ArrayList<>();
        int flushes;

        @Override
        public void write(byte[] b, int off, int len) {
            sizes.add(len);
            arrays.add(b);
            super.write(b, off, len);
        }

        @Override
        public void flush() {
            flushes++;
        }
    }

    @Test
    void aLargeFrameIsWrittenInSlicesOfAtMost64KiBAndFlushedOnce_issue29() throws IOException {
        byte[] frame = new byte[200 * 1024 + 5];
        frame[frame.length - 1] = 7;
        Writes out = new Writes();
        StreamResponse.write(out, frame);
        assertThat(out.sizes).containsExactly(65536, 65536, 65536, 8197);
        assertThat(out.flushes).isOne();
        assertThat(out.toByteArray()).isEqualTo(frame);
        // a queued write keeps its array: the slices are copies, so a slow client's queue never pins the frame
        assertThat(out.arrays).allSatisfy(a -> assertThat(a).isNotSameAs(frame).hasSizeLessThanOrEqualTo(65536));
    }

    @Test
    void aSmallFrameIsOneWrite() throws IOException {
        Writes out = new Writes();
        StreamResponse.write(out, new byte[100]);
        assertThat(out.sizes).containsExactly(100);
        assertThat(StreamResponse.MAX_WRITE_BYTES).isEqualTo(64 * 1024);
    }
}
