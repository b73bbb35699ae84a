package dev.sluice.runtime.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Whole answers read within the per-answer bound and the budget of all answers being read (issue 19). */
class AnswerBuffersTest {

    private static final int KIB = 1024;

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    @Test
    void readsBodiesWithAndWithoutALengthExactly() throws IOException {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 4096 * KIB);
        byte[] body = bytes(300 * KIB + 7);
        assertThat(buffers.read(new ByteArrayInputStream(body), -1)).isEqualTo(body);
        assertThat(buffers.read(new ByteArrayInputStream(body), body.length)).isEqualTo(body);
        // a Content-Length shorter than the body: what follows is read too (to the end of the stream)
        assertThat(buffers.read(new ByteArrayInputStream(body), 100)).isEqualTo(body);
        assertThat(buffers.read(new ByteArrayInputStream(new byte[0]), -1)).isEmpty();
        assertThat(buffers.inUse()).isZero();
    }

    @Test
    void anAnswerPastItsBoundFailsNamingTheSetting() throws IOException {
        AnswerBuffers buffers = new AnswerBuffers(100 * KIB, 64 * KIB, 1024 * KIB);
        assertThatThrownBy(() -> buffers.read(new ByteArrayInputStream(bytes(100 * KIB + 1)), -1))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("upstream.maxAnswerBytes (102400 bytes)");
        assertThat(buffers.read(new ByteArrayInputStream(bytes(100 * KIB)), -1)).hasSize(100 * KIB);
        // a declared length past the bound fails before a byte is read or allocated
        InputStream never = new InputStream() {
            @Override
            public int read() {
                throw new AssertionError("read");
            }
        };
        assertThatThrownBy(() -> buffers.read(never, 1L << 40)).isInstanceOf(ProtocolException.class);
        assertThat(buffers.inUse()).isZero();
    }

    @Test
    void answersReadAtOnceShareTheBudgetAndGiveItBack() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(512 * KIB, 64 * KIB, 1024 * KIB);
        // the first answer holds 512 KiB and waits for more
        CountDownLatch halfway = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        InputStream slow = new InputStream() {
            private int sent;

            @Override
            public int read() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (sent == 480 * KIB) {
                    halfway.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return -1;
                }
                int n = Math.min(len, 480 * KIB - sent);
                Arrays.fill(b, off, off + n, (byte) 'x');
                sent += n;
                return n;
            }
        };
        CompletableFuture<byte[]> first = CompletableFuture.supplyAsync(() -> {
            try {
                return buffers.read(slow, -1);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(halfway.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(buffers.inUse()).as("taken in 64 KiB steps past the first 256 KiB").isEqualTo(256 * KIB);
        // a second large answer finds no room: its read fails at once, naming the setting
        assertThatThrownBy(() -> buffers.read(new ByteArrayInputStream(bytes(512 * KIB)), -1))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("upstream.answerBufferBytes 1048576");
        // a small one still fits
        assertThat(buffers.read(new ByteArrayInputStream(bytes(100 * KIB)), -1)).hasSize(100 * KIB);
        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).hasSize(480 * KIB);
        assertThat(buffers.inUse()).isZero();
        // alone, an answer at its bound always gets room (the copy included), though that is past the budget
        AnswerBuffers tight = new AnswerBuffers(512 * KIB, 64 * KIB, 512 * KIB);
        assertThat(tight.read(new ByteArrayInputStream(bytes(512 * KIB)), -1)).hasSize(512 * KIB);
        assertThat(tight.inUse()).isZero();
    }

    @Test
    void withinARequestTheRoomIsHeldUntilTheRequestEnds() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 8192 * KIB);
        long[] during = new long[2];
        AnswerBuffers.withinRequest(() -> {
            try {
                buffers.read(new ByteArrayInputStream(bytes(512 * KIB)), -1);
                during[0] = buffers.inUse();
                buffers.read(new ByteArrayInputStream(bytes(100 * KIB)), 100 * KIB);
                during[1] = buffers.inUse();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // chunks past 256 KiB (256 KiB), the copy (512 KiB) and four times the answer for its handling (2 MiB)
        assertThat(during[0]).isEqualTo((256 + 512 + 4 * 512) * KIB);
        assertThat(during[1]).as("a small answer is not counted").isEqualTo(during[0]);
        assertThat(buffers.inUse()).isZero();
        // outside a request the room is given back when the read ends
        buffers.read(new ByteArrayInputStream(bytes(512 * KIB)), -1);
        assertThat(buffers.inUse()).isZero();
    }

    @Test
    void aStreamedBodyPastMaxStreamBytesFailsNamingTheSetting_issue29() throws IOException {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 4096 * KIB, 256 * KIB);
        InputStream exact = buffers.streamed(new ByteArrayInputStream(bytes(256 * KIB)));
        assertThat(exact.readAllBytes()).hasSize(256 * KIB);
        InputStream over = buffers.streamed(new ByteArrayInputStream(bytes(256 * KIB + 1)));
        assertThatThrownBy(over::readAllBytes).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("upstream.maxStreamBytes (262144 bytes");
    }
}
