package dev.sluice.runtime.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Canonical chunk streams → Anthropic SSE event sequences (SPEC API-3). */
class AnthropicStreamTranslatorTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final AnthropicStreamTranslator t = new AnthropicCodec().streamTranslator("msg_req_1", "fallback-model");

    /** One parsed SSE event: the {@code event:} name and the {@code data:} JSON. */
    record Event(String name, JsonNode data) {
        @Override
        public String toString() {
            return name + " " + data;
        }
    }

    /** Parses SSE bytes, checking the framing: {@code event: X\ndata: {...}\n\n} with data.type == X. */
    static List<Event> events(byte[] bytes) {
        String s = new String(bytes, StandardCharsets.UTF_8);
        List<Event> out = new ArrayList<>();
        if (s.isEmpty()) {
            return out;
        }
        assertThat(s).endsWith("\n\n");
        for (String block : s.substring(0, s.length() - 2).split("\n\n", -1)) {
            String[] lines = block.split("\n", -1);
            assertThat(lines).hasSize(2);
            assertThat(lines[0]).startsWith("event: ");
            assertThat(lines[1]).startsWith("data: ");
            String name = lines[0].substring(7);
            JsonNode data;
            try {
                data = MAPPER.readTree(lines[1].substring(6));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(data.get("type").asText()).isEqualTo(name);
            out.add(new Event(name, data));
        }
        return out;
    }

    private static List<String> names(List<Event> events) {
        return events.stream().map(Event::name).toList();
    }

    private static JsonNode json(String singleQuoted) {
        try {
            return MAPPER.readTree(singleQuoted.replace('\'', '"'));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static StreamChunk chunk(ChunkChoice choice) {
        return chunk(choice, null);
    }

    private static StreamChunk chunk(ChunkChoice choice, Usage usage) {
        return new StreamChunk("chatcmpl-9", "gpt-x", 1, choice == null ? List.of() : List.of(choice), usage, Map.of());
    }

    private static ChunkChoice text(String piece) {
        return new ChunkChoice(0, null, piece, List.of(), null, null);
    }

    private static ChunkChoice reasoning(String piece) {
        return new ChunkChoice(0, null, null, List.of(), null, piece);
    }

    private static ChunkChoice tool(int index, String id, String name, String args) {
        return new ChunkChoice(0, null, null, List.of(new ToolCallDelta(index, id, name, args)), null, null);
    }

    private static ChunkChoice finish(String reason) {
        return new ChunkChoice(0, null, null, List.of(), reason, null);
    }

    private List<Event> all(StreamChunk... chunks) {
        List<Event> out = new ArrayList<>();
        for (StreamChunk c : chunks) {
            out.addAll(events(t.next(c)));
        }
        out.addAll(events(t.end()));
        return out;
    }

    @Test
    void textStreamGivesTheAnthropicEventSequence_API3() {
        List<Event> first = events(t.next(chunk(new ChunkChoice(0, Role.ASSISTANT, "", List.of(), null, null))));
        assertThat(names(first)).containsExactly("message_start");
        assertThat(first.get(0).data()).isEqualTo(json("{'type':'message_start','message':{'id':'msg_chatcmpl-9','type':'message',"
                + "'role':'assistant','model':'gpt-x','content':[],'stop_reason':null,'stop_sequence':null,"
                + "'usage':{'input_tokens':0,'output_tokens':0}}}"));

        List<Event> hel = events(t.next(chunk(text("Hel"))));
        assertThat(hel).extracting(Event::data).containsExactly(
                json("{'type':'content_block_start','index':0,'content_block':{'type':'text','text':''}}"),
                json("{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':'Hel'}}"));
        assertThat(events(t.next(chunk(text("lo"))))).extracting(Event::data).containsExactly(
                json("{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':'lo'}}"));

        List<Event> fin = events(t.next(chunk(finish("stop"), new Usage(3, 5, 8))));
        assertThat(fin).extracting(Event::data).containsExactly(json("{'type':'content_block_stop','index':0}"));
        assertThat(events(t.end())).extracting(Event::data).containsExactly(
                json("{'type':'message_delta','delta':{'stop_reason':'end_turn','stop_sequence':null},"
                        + "'usage':{'input_tokens':3,'output_tokens':5}}"),
                json("{'type':'message_stop'}"));
        assertThat(t.end()).isEmpty();
    }

    @Test
    void toolCallSplitAcrossManyDeltasIsOneToolUseBlock_API3() {
        List<Event> events = all(
                chunk(new ChunkChoice(0, Role.ASSISTANT, null, List.of(), null, null)),
                chunk(tool(0, "call_1", "get_weather", "")),
                chunk(tool(0, null, null, "{\"ci")),
                chunk(tool(0, null, null, "ty\":")),
                chunk(tool(0, null, null, "\"Paris\"}")),
                chunk(finish("tool_calls"), new Usage(10, 7, 17)));

        assertThat(names(events)).containsExactly("message_start", "content_block_start", "content_block_delta",
                "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop");
        assertThat(events.get(1).data()).isEqualTo(json("{'type':'content_block_start','index':0,"
                + "'content_block':{'type':'tool_use','id':'call_1','name':'get_weather','input':{}}}"));
        StringBuilder args = new StringBuilder();
        for (Event e : events.subList(2, 5)) {
            assertThat(e.data().at("/delta/type").asText()).isEqualTo("input_json_delta");
            assertThat(e.data().get("index").asInt()).isZero();
            args.append(e.data().at("/delta/partial_json").asText());
        }
        assertThat(args).hasToString("{\"city\":\"Paris\"}");
        assertThat(events.get(6).data().at("/delta/stop_reason").asText()).isEqualTo("tool_use");
        assertThat(events.get(6).data().at("/usage/output_tokens").asInt()).isEqualTo(7);
    }

    @Test
    void textThenTwoToolCallsCloseEachBlockWhenTheKindChanges_API3() {
        List<Event> events = all(
                chunk(text("Checking.")),
                chunk(new ChunkChoice(0, null, null, List.of(new ToolCallDelta(0, "call_a", "a", "{}")), null, null)),
                chunk(new ChunkChoice(0, null, null, List.of(new ToolCallDelta(1, "call_b", "b", "{\"x\"")), null, null)),
                chunk(tool(1, null, null, ":1}")),
                chunk(finish("tool_calls")));

        assertThat(events).extracting(e -> e.name() + (e.data().has("index") ? "@" + e.data().get("index").asInt() : ""))
                .containsExactly("message_start",
                        "content_block_start@0", "content_block_delta@0", "content_block_stop@0",
                        "content_block_start@1", "content_block_delta@1", "content_block_stop@1",
                        "content_block_start@2", "content_block_delta@2", "content_block_delta@2", "content_block_stop@2",
                        "message_delta", "message_stop");
        assertThat(events.get(7).data().at("/content_block/id").asText()).isEqualTo("call_b");
        // no usage from the upstream: output_tokens 0, no input_tokens claimed
        assertThat(events.get(11).data().get("usage")).isEqualTo(json("{'output_tokens':0}"));
    }

    @Test
    void reasoningBecomesAThinkingBlockBeforeTheText_API3() {
        List<Event> events = all(
                chunk(reasoning("Let me ")),
                chunk(reasoning("think.")),
                chunk(text("Answer")),
                chunk(finish("stop")));

        assertThat(names(events)).containsExactly("message_start", "content_block_start", "content_block_delta",
                "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop",
                "message_delta", "message_stop");
        assertThat(events.get(1).data()).isEqualTo(json("{'type':'content_block_start','index':0,"
                + "'content_block':{'type':'thinking','thinking':'','signature':''}}"));
        assertThat(events.get(2).data()).isEqualTo(json("{'type':'content_block_delta','index':0,"
                + "'delta':{'type':'thinking_delta','thinking':'Let me '}}"));
        assertThat(events.get(5).data().at("/content_block/type").asText()).isEqualTo("text");
        assertThat(events.get(5).data().get("index").asInt()).isEqualTo(1);
    }

    @Test
    void heartbeatsBecomePingEvents_API3() {
        List<Event> first = events(t.next(StreamChunk.heartbeat("", "")));
        assertThat(names(first)).containsExactly("message_start", "ping");
        // a heartbeat carries no id or model: the fallbacks name the message
        assertThat(first.get(0).data().at("/message/id").asText()).isEqualTo("msg_req_1");
        assertThat(first.get(0).data().at("/message/model").asText()).isEqualTo("fallback-model");
        assertThat(first.get(1).data()).isEqualTo(json("{'type':'ping'}"));

        events(t.next(chunk(text("a"))));
        assertThat(names(events(t.next(StreamChunk.heartbeat("x", "m"))))).containsExactly("ping");
    }

    @Test
    void usageOnlyChunkAfterTheFinishIsReportedInMessageDelta_API3() {
        List<Event> events = all(
                chunk(text("Hi")),
                chunk(finish("length")),
                chunk(null, new Usage(20, 64, 84)));

        Event delta = events.get(events.size() - 2);
        assertThat(delta.data()).isEqualTo(json("{'type':'message_delta','delta':{'stop_reason':'max_tokens','stop_sequence':null},"
                + "'usage':{'input_tokens':20,'output_tokens':64}}"));
    }

    @Test
    void streamThatEndsWithoutAFinishStillClosesItsBlockAndMessage_API3() {
        List<Event> events = all(chunk(text("partial")));
        assertThat(names(events)).containsExactly("message_start", "content_block_start", "content_block_delta",
                "content_block_stop", "message_delta", "message_stop");
        assertThat(events.get(4).data().at("/delta/stop_reason").asText()).isEqualTo("end_turn");
    }

    @Test
    void midStreamFailureIsAnErrorEventInTheAnthropicEnvelope_API3() {
        events(t.next(chunk(text("half"))));
        List<Event> err = events(t.error("[mockai/gpt-x] upstream stream failed: reset"));
        assertThat(err).extracting(Event::data).containsExactly(json("{'type':'error','error':{'type':'api_error',"
                + "'message':'[mockai/gpt-x] upstream stream failed: reset'}}"));
        assertThat(t.end()).isEmpty();
    }

    @Test
    void onlyTheFirstChoiceIsTranslated_API3() {
        StreamChunk two = new StreamChunk("c", "m", 1, List.of(new ChunkChoice(1, null, "other", List.of(), null, null),
                new ChunkChoice(0, null, "mine", List.of(), null, null)), null, Map.of());
        List<Event> events = events(t.next(two));
        assertThat(events.get(events.size() - 1).data().at("/delta/text").asText()).isEqualTo("mine");
        assertThat(events).hasSize(3);
    }
}
