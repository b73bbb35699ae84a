package dev.sluice.runtime.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A Responses stream passed through: events kept byte for byte, and what each proves (SPEC ST-0, ST-1, ST-3). */
class ResponsesSseEventsTest {

    private static final Signal TOOL_OR_REASONING = new Signal(false, true, true, true, 0);

    private static String ev(String type, String rest) {
        return "event: " + type + "\ndata: {\"type\":\"" + type + "\"" + rest + "}\n\n";
    }

    private static List<SseEvent> read(String s) throws IOException {
        ResponsesSseEvents events = new ResponsesSseEvents(new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8)), () -> { }, SseEventReader.MAX_EVENT_BYTES);
        List<SseEvent> out = new ArrayList<>();
        SseEvent e;
        while ((e = events.next()) != null) {
            out.add(e);
        }
        return out;
    }

    @Test
    void eachEventProvesWhatTheSpecSays() throws IOException {
        String stream = ev("response.created", ",\"response\":{\"id\":\"r\",\"output\":[]}")
                + ": keep-alive\n\n"
                + ev("response.output_item.added", ",\"output_index\":0,\"item\":{\"id\":\"m\",\"type\":\"message\",\"content\":[]}")
                + ev("response.output_item.added", ",\"output_index\":1,\"item\":{\"id\":\"rs\",\"type\":\"reasoning\"}")
                + ev("response.reasoning_summary_text.delta", ",\"delta\":\"hm\"")
                + ev("response.web_search_call.searching", ",\"item_id\":\"ws\"")
                + ev("response.function_call_arguments.delta", ",\"delta\":\"{\"")
                + ev("response.output_text.delta", ",\"delta\":\"héllo wörld\"")
                + ev("response.output_text.done", ",\"text\":\"hello\"")
                + ev("response.output_item.done", ",\"item\":{\"type\":\"message\"}")
                + ev("response.completed", ",\"response\":{\"status\":\"completed\"}");

        List<SseEvent> events = read(stream);

        assertThat(events).extracting(SseEvent::signal).containsExactly(
                Signal.NOTHING, Signal.HEARTBEAT, Signal.NOTHING, TOOL_OR_REASONING, TOOL_OR_REASONING, TOOL_OR_REASONING,
                TOOL_OR_REASONING, new Signal(false, true, true, false, 13), Signal.NOTHING, new Signal(false, true, true, false, 0),
                new Signal(false, true, false, false, 0));
        StringBuilder all = new StringBuilder();
        events.forEach(e -> all.append(new String(e.bytes(), StandardCharsets.UTF_8)));
        assertThat(all.toString()).as("byte for byte").isEqualTo(stream);
    }

    @Test
    void anEventWithoutItsEventLineIsNamedByItsDataType() throws IOException {
        ResponsesSseEvents events = new ResponsesSseEvents(new ByteArrayInputStream(
                "data: {\"type\":\"response.output_text.delta\",\"delta\":\"ab\"}\n\n".getBytes(StandardCharsets.UTF_8)), () -> { }, SseEventReader.MAX_EVENT_BYTES);
        SseEvent e = events.next();
        assertThat(e.type()).isEqualTo("response.output_text.delta");
        assertThat(e.signal().textBytes()).isEqualTo(2);
    }

    @Test
    void aStreamCutBeforeItsTerminalEventIsAnEofNeverACompletedAnswer() {
        ResponsesSseEvents events = new ResponsesSseEvents(new ByteArrayInputStream(
                ev("response.output_text.delta", ",\"delta\":\"ab\"").getBytes(StandardCharsets.UTF_8)), () -> { }, SseEventReader.MAX_EVENT_BYTES);
        assertThat(catchThrowable(() -> {
            events.next();
            events.next();
        })).isInstanceOf(EOFException.class).hasMessageContaining("response.completed");
    }

    @Test
    void failedAndErrorEndAStreamAsAStreamShouldEnd() throws IOException {
        assertThat(read(ev("response.failed", ",\"response\":{}"))).hasSize(1);
        assertThat(read(ev("error", ",\"code\":\"x\""))).hasSize(1);
        assertThat(read(ev("response.incomplete", ",\"response\":{}")).get(0).signal().useful()).isTrue();
    }
}
