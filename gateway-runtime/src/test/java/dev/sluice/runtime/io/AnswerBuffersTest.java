package dev.sluice.runtime.io;

import static dev.sluice.runtime.io.AnswerBuffers.DEFAULT_MAX_STREAM_BYTES;
import static dev.sluice.runtime.io.AnswerBuffers.DEFAULT_WATCH;
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
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 4096 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
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
        AnswerBuffers buffers = new AnswerBuffers(100 * KIB, 64 * KIB, 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
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
        AnswerBuffers buffers = new AnswerBuffers(512 * KIB, 64 * KIB, 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
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
        AnswerBuffers tight = new AnswerBuffers(512 * KIB, 64 * KIB, 512 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        assertThat(tight.read(new ByteArrayInputStream(bytes(512 * KIB)), -1)).hasSize(512 * KIB);
        assertThat(tight.inUse()).isZero();
    }

    @Test
    void withinARequestTheRoomIsHeldUntilTheRequestEnds() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 8192 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
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
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 4096 * KIB, 256 * KIB, DEFAULT_WATCH);
        InputStream exact = buffers.streamed(new ByteArrayInputStream(bytes(256 * KIB)));
        assertThat(exact.readAllBytes()).hasSize(256 * KIB);
        InputStream over = buffers.streamed(new ByteArrayInputStream(bytes(256 * KIB + 1)));
        assertThatThrownBy(over::readAllBytes).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("upstream.maxStreamBytes (262144 bytes");
    }

    /** A completion whose content is {@code text}: four tokens (object, field, string, end). */
    private static byte[] answer(String text) {
        return ("{\"content\":\"" + text + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static long heldWithinARequest(AnswerBuffers buffers, byte[] body) {
        long[] held = new long[1];
        AnswerBuffers.withinRequest(() -> {
            try {
                buffers.read(new ByteArrayInputStream(body), body.length);
                held[0] = buffers.inUse();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        return held[0];
    }

    @Test
    void theRoomOfALargeAnswerCountsItsTokensAndItsTwoByteText_issue29() {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 64 * 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        byte[] ascii = answer("y".repeat(600 * KIB));
        // its bytes, four times them for its handling, 96 bytes for each of its four tokens
        assertThat(heldWithinARequest(buffers, ascii)).isEqualTo(5L * ascii.length + 4 * AnswerBuffers.TOKEN_BYTES);
        // one character past Latin-1 makes every Java string of it two bytes a character: twice its size more
        byte[] wide = answer("\\u20ac" + "y".repeat(600 * KIB));
        assertThat(heldWithinARequest(buffers, wide)).isEqualTo(7L * wide.length + 4 * AnswerBuffers.TOKEN_BYTES);
        byte[] utf8 = ("{\"content\":\"\u20ac" + "y".repeat(600 * KIB) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(heldWithinARequest(buffers, utf8)).isEqualTo(7L * utf8.length + 4 * AnswerBuffers.TOKEN_BYTES);
        // Latin-1 text, raw or escaped, stays one byte a character
        byte[] latin1 = answer("\\u00e9\u00e9" + "y".repeat(600 * KIB));
        assertThat(heldWithinARequest(buffers, latin1)).isEqualTo(5L * latin1.length + 4 * AnswerBuffers.TOKEN_BYTES);
        // 600 KiB of numbers: 300 000 tokens, each counted
        StringBuilder numbers = new StringBuilder("[1");
        while (numbers.length() < 600 * KIB) {
            numbers.append(",1");
        }
        byte[] many = numbers.append(']').toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long tokens = 2 + (many.length - 2 + 1) / 2;
        assertThat(heldWithinARequest(buffers, many)).isEqualTo(5L * many.length + tokens * AnswerBuffers.TOKEN_BYTES);
        assertThat(buffers.inUse()).isZero();
    }

    @Test
    void anAnswerWhoseTreeWouldNotFitIsRefusedEvenAlone_issue29() throws IOException {
        // alone, an answer may hold the budget or eight times upstream.maxAnswerBytes: here 8 MiB
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 64 * KIB, 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        assertThat(buffers.maxRoom()).isEqualTo(8L * 1024 * KIB);
        // a valid 900 KiB answer of 600 000 empty objects: a tree of ~28 MiB, counted as 57 MiB
        StringBuilder objects = new StringBuilder("{\"x\":[{}");
        while (objects.length() < 900 * KIB) {
            objects.append(",{}");
        }
        byte[] tree = objects.append("]}").toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThatThrownBy(() -> buffers.read(new ByteArrayInputStream(tree), tree.length)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("too many JSON values").hasMessageContaining("upstream.answerBufferBytes 1048576");
        assertThatThrownBy(() -> buffers.read(new ByteArrayInputStream(tree), -1)).isInstanceOf(ProtocolException.class);
        assertThat(buffers.inUse()).isZero();
        // the largest answer of plain text, two-byte text at that, still fits alone, chunked or sized
        byte[] largest = answer("\u20ac" + "y".repeat(1024 * KIB - 20));
        assertThat(buffers.read(new ByteArrayInputStream(largest), -1)).isEqualTo(largest);
        assertThat(buffers.read(new ByteArrayInputStream(largest), largest.length)).isEqualTo(largest);
        assertThat(buffers.inUse()).isZero();
    }

    @Test
    void aLargeStreamEventIsParsedOnlyWhenItsTreeStaysWithinThreeTimesItsSize_issue29() throws ProtocolException {
        // text, however large: a few tokens
        AnswerBuffers.checkStreamEvent("{\"delta\":\"" + "y".repeat(1024 * KIB) + "\"}");
        // small events are not looked at
        AnswerBuffers.checkStreamEvent("[" + "{},".repeat(10_000) + "{}]");
        // at 96 bytes a token, 3 x 96 KiB of room is 3 072 tokens: 3 000 pass, 3 100 do not
        StringBuilder within = new StringBuilder("[0");
        for (int i = 1; i < 2_998; i++) {
            within.append(",0");
        }
        String pad = " ".repeat(96 * KIB - within.length() - 1);
        AnswerBuffers.checkStreamEvent(within + pad + "]");
        StringBuilder over = new StringBuilder("[0");
        for (int i = 1; i < 3_098; i++) {
            over.append(",0");
        }
        String overEvent = over + " ".repeat(96 * KIB - over.length() - 1) + "]";
        assertThatThrownBy(() -> AnswerBuffers.checkStreamEvent(overEvent)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("too many JSON values for its size").hasMessageContaining("more than 3072 JSON values");
    }
}
