package dev.sluice.runtime.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An Anthropic stream passed through: events kept byte for byte, and what each proves (SPEC ST-0, ST-1, ST-3). */
class AnthropicSseEventsTest {

    private static final String STREAM = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"}}\n\n"
            + "event: ping\ndata: {\"type\": \"ping\"}\n\n"
            + ": a comment\n\n"
            + "event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\r\n\r\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\"}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"h\\u00e9llo \\\"x\\\"\"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"
            + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
            + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

    private static List<SseEvent> read(String s) throws IOException {
        AnthropicSseEvents events = new AnthropicSseEvents(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)), () -> { }, SseEventReader.MAX_EVENT_BYTES);
        List<SseEvent> out = new ArrayList<>();
        SseEvent e;
        while ((e = events.next()) != null) {
            out.add(e);
        }
        return out;
    }

    @Test
    void everyEventKeepsItsBytesSoTheRelayIsByteForByte() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (SseEvent e : read(STREAM)) {
            all.writeBytes(e.bytes());
        }
        assertThat(all.toString(StandardCharsets.UTF_8)).isEqualTo(STREAM);
    }

    @Test
    void eachEventProvesWhatTheSpecSays() throws IOException {
        List<SseEvent> events = read(STREAM);
        assertThat(events).extracting(SseEvent::type).containsExactly("message_start", "ping", null, "content_block_start",
                "content_block_delta", "content_block_start", "content_block_delta", "content_block_delta", "message_delta", "message_stop");
        assertThat(events.get(0).signal()).as("message_start is metadata").isEqualTo(Signal.NOTHING);
        assertThat(events.get(1).signal()).isEqualTo(Signal.HEARTBEAT);
        assertThat(events.get(2).signal()).isEqualTo(Signal.NOTHING);
        assertThat(events.get(3).signal().useful()).as("a thinking block starts").isTrue();
        assertThat(events.get(4).signal()).as("an empty thinking delta is reasoning").isEqualTo(new Signal(false, true, true, true, 0));
        assertThat(events.get(5).signal()).as("a text block's start is not yet content").isEqualTo(Signal.NOTHING);
        assertThat(events.get(6).signal().activity()).isTrue();
        assertThat(events.get(6).signal().textBytes()).isGreaterThanOrEqualTo(8);
        assertThat(events.get(7).signal()).as("tool-call arguments suspend the throughput judgement")
                .isEqualTo(new Signal(false, true, true, true, 0));
        assertThat(events.get(8).signal().useful()).as("a stop reason is a finish").isTrue();
        assertThat(events.get(8).signal().activity()).isFalse();
        assertThat(events.get(9).signal().useful()).isTrue();
        assertThat(events.get(4).data()).contains("thinking_delta");
    }

    @Test
    void aStreamEndingMidEventStillYieldsWhatArrivedAndThenSaysItWasCut() {
        AnthropicSseEvents events = new AnthropicSseEvents(new ByteArrayInputStream("event: ping\ndata: {}".getBytes(StandardCharsets.UTF_8)),
                () -> { }, SseEventReader.MAX_EVENT_BYTES);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> {
            assertThat(events.next().type()).isEqualTo("ping");
            events.next();
        })).isInstanceOf(java.io.EOFException.class);
    }

    @Test
    void aTruncatedPassthroughStreamIsAnUpstreamFailureNeverACompletedAnswer() {
        // review finding: the upstream closed mid-answer (no message_stop); the client must be told, the counters must say so
        String sse = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\"}}\n\n"
                + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n";
        List<String> written = new ArrayList<>();
        StreamEnding ending = StreamRelay.relay(List.of(), new Pump<>(new AnthropicSseEvents(new ByteArrayInputStream(
                sse.getBytes(StandardCharsets.UTF_8)), () -> { }, SseEventReader.MAX_EVENT_BYTES), "t", frame -> 0, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS), new StreamRelay.Sink<SseEvent>() {
                    @Override
                    public void frame(SseEvent frame) {
                        written.add(frame.type());
                    }

                    @Override
                    public void keepAlive() {
                    }

                    @Override
                    public void error(String code, String message, boolean watchdog) {
                        written.add("error:" + code);
                    }

                    @Override
                    public void end() {
                        written.add("end");
                    }
                }, SseEvent::signal, StreamRules.DEFAULTS, System.nanoTime(), System::nanoTime, () -> true);
        assertThat(ending).isEqualTo(StreamEnding.UPSTREAM_FAILED);
        assertThat(written).containsExactly("message_start", "content_block_delta", "error:upstream_stream_error");
    }
}
