package dev.sluice.toolkit.sse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Server-sent event framing: line endings, multi-line data, comments, fields without a space. */
class SseEventReaderTest {

    private static SseEventReader reader(String text) {
        return new SseEventReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void readsEventNameAndDataAcrossLineEndingStyles() throws IOException {
        SseEventReader r = reader("event: a\r\ndata: 1\r\n\r\nevent:b\rdata:2\r\revent: c\ndata: 3\n\n");
        assertThat(r.next()).isEqualTo(new SseEventReader.Event("a", "1"));
        assertThat(r.next()).isEqualTo(new SseEventReader.Event("b", "2"));
        assertThat(r.next()).isEqualTo(new SseEventReader.Event("c", "3"));
        assertThat(r.next()).isNull();
    }

    @Test
    void joinsMultiLineDataAndSkipsCommentsIdsAndEventsWithoutData() throws IOException {
        SseEventReader r = reader(": keep-alive\n\nevent: lonely\n\nid: 7\nretry: 10\ndata: {\"a\":\ndata: 1}\n\n");
        assertThat(r.next()).isEqualTo(new SseEventReader.Event(null, "{\"a\":\n1}"));
        assertThat(r.next()).isNull();
    }

    @Test
    void handsOverALastEventThatLacksItsBlankLine() throws IOException {
        SseEventReader r = reader("event: x\ndata: tail");
        assertThat(r.next()).isEqualTo(new SseEventReader.Event("x", "tail"));
        assertThat(r.next()).isNull();
    }

    @Test
    void refusesALineLongerThanTheLimitInsteadOfBufferingIt() {
        String huge = "data: " + "x".repeat(SseEventReader.MAX_EVENT_CHARS + 1) + "\n\n";
        assertThatThrownBy(() -> reader(huge).next()).isInstanceOf(java.net.ProtocolException.class).hasMessageContaining("longer than " + SseEventReader.MAX_EVENT_CHARS);
    }

    @Test
    void theLimitIsTheGatewaysFourMebibytesPerEvent_SEC6() {
        assertThat(SseEventReader.MAX_EVENT_CHARS).isEqualTo(4 * 1024 * 1024);
    }
}
