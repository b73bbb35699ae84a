package dev.sluice.toolkit.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Bounded SSE lines (SEC-6): a hostile upstream cannot make one line fill the heap. */
class SseLineReaderTest {

    private static SseLineReader reader(String text, int max) {
        return new SseLineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), max);
    }

    @Test
    void theDefaultLimitIsFourMebibytesPerEvent_SEC6() {
        assertThat(SseLineReader.MAX_EVENT_CHARS).isEqualTo(4 * 1024 * 1024);
        assertThat(new SseLineReader(InputStream.nullInputStream()).maxChars()).isEqualTo(SseLineReader.MAX_EVENT_CHARS);
    }

    @Test
    void linesEndAtLfCrLfOrCrAndTheUnterminatedRestComesLast() throws IOException {
        SseLineReader r = reader("data: a\r\ndata: é\n\rx\rtail", 100);
        assertThat(r.readLine()).isEqualTo("data: a");
        assertThat(r.readLine()).isEqualTo("data: é");
        assertThat(r.readLine()).isEqualTo("");
        assertThat(r.readLine()).isEqualTo("x");
        assertThat(r.readLine()).isEqualTo("tail");
        assertThat(r.readLine()).isNull();
    }

    @Test
    void aLineAtTheLimitPassesAndOneCharacterMoreFailsAsAProtocolError_SEC6() throws IOException {
        SseLineReader r = reader("x".repeat(10) + "\n" + "y".repeat(11) + "\n", 10);
        assertThat(r.readLine()).hasSize(10);
        assertThatThrownBy(r::readLine).isInstanceOf(ProtocolException.class)
                .hasMessage("the upstream sent a stream event longer than 10 characters (the gateway's limit per server-sent event)");
    }

    @Test
    void aLineWithoutEndIsRefusedAfterReadingLittleMoreThanTheLimit_SEC6() {
        long[] served = {0};
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                served[0]++;
                return 'x';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                Arrays.fill(b, off, off + len, (byte) 'x');
                served[0] += len;
                return len;
            }
        };
        SseLineReader r = new SseLineReader(endless, 1024 * 1024);
        assertThatThrownBy(r::readLine).isInstanceOf(ProtocolException.class);
        assertThat(served[0]).isLessThan(1024 * 1024 + 64 * 1024);
    }

    @Test
    void anEventOfManyLinesIsCheckedAsAWhole_SEC6() {
        SseLineReader r = reader("", 10);
        assertThatThrownBy(() -> r.checkEvent(11)).isInstanceOf(ProtocolException.class);
    }
}
