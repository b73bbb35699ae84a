package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Anthropic SSE → canonical chunks, fed as realistic event text through an in-memory upstream
 * response (API-3, ST-1 frame kinds, issue 3).
 */
class MessagesStreamTest {

    private static final long T = 1_767_225_600L;

    private static FakeUpstream.FakeResponse response(String sse) {
        return new FakeUpstream.FakeResponse(200, Map.of("content-type", List.of("text/event-stream")), sse);
    }

    private static MessagesChunkStream stream(FakeUpstream.FakeResponse response) {
        return new MessagesChunkStream(response, new StreamTranslator(T));
    }

    private static List<StreamChunk> readAll(MessagesChunkStream s) throws IOException {
        List<StreamChunk> out = new ArrayList<>();
        StreamChunk c;
        while ((c = s.next()) != null) {
            out.add(c);
        }
        return out;
    }

    // ---------------------------------------------------------------- expected chunks

    /**
     * The given chunk as the first one of an answer: {@code message_start} sends nothing itself, its
     * role {@code assistant} rides on the first chunk that follows (a heartbeat excepted).
     */
    private static StreamChunk first(StreamChunk c) {
        assertThat(c.choices()).as("an expected first chunk has one choice").hasSize(1);
        ChunkChoice ch = c.choices().get(0);
        assertThat(ch.role()).as("the expected chunk has no role of its own").isNull();
        return new StreamChunk(c.id(), c.model(), c.created(), List.of(new ChunkChoice(ch.index(), Role.ASSISTANT, ch.contentDelta(),
                ch.toolCalls(), ch.finishReason(), ch.reasoningDelta())), c.usage(), c.extra(), c.kind());
    }

    private static StreamChunk content(String id, String model, String text) {
        return new StreamChunk(id, model, T, List.of(new ChunkChoice(0, null, text, List.of(), null, null)), null, Map.of(),
                FrameKind.CONTENT);
    }

    private static StreamChunk reasoning(String id, String model, String text) {
        return new StreamChunk(id, model, T, List.of(new ChunkChoice(0, null, null, List.of(), null, text)), null, Map.of(),
                FrameKind.REASONING);
    }

    private static StreamChunk tool(String id, String model, int index, String callId, String name, String args) {
        return new StreamChunk(id, model, T, List.of(new ChunkChoice(0, null, null, List.of(new ToolCallDelta(index, callId, name, args)),
                null, null)), null, Map.of(), FrameKind.CONTENT);
    }

    private static StreamChunk finish(String id, String model, String reason, Usage usage) {
        return new StreamChunk(id, model, T, List.of(new ChunkChoice(0, null, null, List.of(), reason, null)), usage, Map.of(),
                FrameKind.METADATA);
    }

    private static Usage usage(long prompt, long completion, Long cacheRead, Long cacheCreation) {
        Map<String, String> extra = new LinkedHashMap<>();
        if (cacheRead != null) {
            extra.put("prompt_tokens_details", "{\"cached_tokens\":" + cacheRead + "}");
            extra.put("cache_read_input_tokens", cacheRead.toString());
        }
        if (cacheCreation != null) {
            extra.put("cache_creation_input_tokens", cacheCreation.toString());
        }
        return new Usage(prompt, completion, prompt + completion, extra);
    }

    // ---------------------------------------------------------------- golden streams

    @Test
    void textStreamTranslatesEventByEvent_pingIsAHeartbeatWithoutRole_theFirstContentCarriesTheRole_golden() throws IOException {
        var response = response(Golden.read("stream/text.sse"));
        String id = "msg_01Stream";
        String model = "claude-sonnet-4-5-20250929";
        try (MessagesChunkStream s = stream(response)) {
            assertThat(readAll(s)).containsExactly(
                    StreamChunk.heartbeat(id, model),
                    first(content(id, model, "Hello")),
                    content(id, model, ", wörld! 😀\n"),
                    finish(id, model, "stop", usage(25, 15, 0L, 0L)));
            assertThat(s.next()).as("after message_stop the stream stays ended").isNull();
        }
        assertThat(response.closed).isTrue();
        assertThat(response.bodyAtEnd()).as("a finished stream is read to its end so the connection is pooled").isTrue();
    }

    @Test
    void aToolCallWhoseInputArrivesInManyDeltasStreamsPieceByPiece_golden() throws IOException {
        String id = "msg_014p7gG3wDgGV9EUtLvnow3U";
        String model = "claude-sonnet-4-5-20250929";
        List<StreamChunk> chunks;
        try (MessagesChunkStream s = stream(response(Golden.read("stream/tool_use.sse")))) {
            chunks = readAll(s);
        }
        assertThat(chunks).containsExactly(
                StreamChunk.heartbeat(id, model),
                first(content(id, model, "Okay, let's check the weather.")),
                tool(id, model, 0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", ""),
                tool(id, model, 0, null, null, "{\"location\":"),
                tool(id, model, 0, null, null, " \"San"),
                tool(id, model, 0, null, null, " Francisc"),
                tool(id, model, 0, null, null, "o,"),
                tool(id, model, 0, null, null, " CA\""),
                tool(id, model, 0, null, null, ", "),
                tool(id, model, 0, null, null, "\"unit\": \"fah"),
                tool(id, model, 0, null, null, "renheit\"}"),
                tool(id, model, 1, "toolu_02NoArgs", "get_time", ""),
                tool(id, model, 1, null, null, "{}"),
                finish(id, model, "tool_calls", usage(472, 89, null, null)));
        StringBuilder args = new StringBuilder();
        for (StreamChunk c : chunks) {
            for (ChunkChoice ch : c.choices()) {
                for (ToolCallDelta d : ch.toolCalls()) {
                    if (d.index() == 0) {
                        args.append(d.argumentsDelta());
                    }
                }
            }
        }
        assertThat(Json.parse(args.toString())).isEqualTo(Map.of("location", "San Francisco, CA", "unit", "fahrenheit"));
    }

    @Test
    void thinkingDeltasAreReasoningFramesEvenWhenEmpty_signaturesSendNothing_theFirstReasoningCarriesTheRole_golden_ST1() throws IOException {
        String id = "msg_01Think";
        String model = "claude-opus-4-1-20250805";
        try (MessagesChunkStream s = stream(response(Golden.read("stream/thinking.sse")))) {
            assertThat(readAll(s)).containsExactly(
                    first(reasoning(id, model, "Let me solve this step by step:\n\n1. First break down 27 * 453")),
                    reasoning(id, model, ""),
                    reasoning(id, model, "\n2. 453 = 400 + 50 + 3"),
                    content(id, model, "27 * 453 = 12,231"),
                    finish(id, model, "stop", usage(30 + 1024, 210, 1024L, null)));
        }
    }

    @Test
    void anErrorEventMidStreamIsAnIOExceptionNamingTypeAndMessage_golden() throws IOException {
        var response = response(Golden.read("stream/error_midstream.sse"));
        MessagesChunkStream s = stream(response);
        assertThat(s.next()).isEqualTo(first(content("msg_01Err", "claude-sonnet-4-5-20250929", "Partial")));
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("overloaded_error: Overloaded");
        assertThat(s.next()).isNull();
        s.close();
        assertThat(response.closed).isTrue();
    }

    @Test
    void aStreamThatClosesBeforeMessageStopIsAnIOException_golden() throws IOException {
        var response = response(Golden.read("stream/early_close.sse"));
        MessagesChunkStream s = stream(response);
        assertThat(s.next()).isEqualTo(first(content("msg_01Cut", "claude-sonnet-4-5-20250929", "Cut off")));
        assertThat(s.next()).isEqualTo(finish("msg_01Cut", "claude-sonnet-4-5-20250929", "stop", usage(10, 3, null, null)));
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("no message_stop");
        assertThat(s.next()).isNull();
        s.close();
        assertThat(response.closed).isTrue();
    }

    @Test
    void overloadedRightAfterMessageStartThrowsBeforeAnyChunk_soTheRuntimeCanFailOver() throws IOException {
        var response = response(Golden.read("stream/overloaded_after_start.sse"));
        MessagesChunkStream s = stream(response);
        assertThatThrownBy(s::next).as("message_start alone emits nothing: the first next() already meets the error")
                .isInstanceOf(IOException.class).hasMessage("upstream sent an error event: overloaded_error: Overloaded");
        assertThat(s.next()).isNull();
        s.close();
        assertThat(response.closed).isTrue();
        assertThat(response.bodyAtEnd()).as("a failed stream is not drained").isFalse();
    }

    @Test
    void overloadedAfterMessageStartAndAPing_onlyTheHeartbeatPrecedesTheError() throws IOException {
        String[] events = Golden.read("stream/overloaded_after_start.sse").split("(?<=\n\n)");
        String sse = events[0] + "event: ping\ndata: {\"type\": \"ping\"}\n\n" + events[1];
        MessagesChunkStream s = stream(response(sse));
        assertThat(s.next()).isEqualTo(StreamChunk.heartbeat("msg_01Busy", "claude-sonnet-4-5-20250929"));
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("overloaded_error: Overloaded");
        assertThat(s.next()).isNull();
        s.close();
    }

    @Test
    void aStreamThatClosesRightAfterMessageStartIsAnIOException_withNoChunkBefore() throws IOException {
        String messageStartOnly = Golden.read("stream/text.sse").split("(?<=\n\n)")[0];
        assertThat(messageStartOnly).startsWith("event: message_start\n");
        var response = response(messageStartOnly);
        MessagesChunkStream s = stream(response);
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("no message_stop");
        assertThat(s.next()).isNull();
        s.close();
        assertThat(response.closed).isTrue();
    }

    @Test
    void anAnswerWithoutContentPutsTheRoleOnTheFinishChunk_golden() throws IOException {
        String id = "msg_01Empty";
        String model = "claude-sonnet-4-5-20250929";
        try (MessagesChunkStream s = stream(response(Golden.read("stream/empty_answer.sse")))) {
            assertThat(readAll(s)).containsExactly(
                    StreamChunk.heartbeat(id, model),
                    first(finish(id, model, "stop", usage(8, 2, null, null))));
        }
    }

    @Test
    void aUsageOnlyMessageDeltaAsFirstChunkCarriesTheRoleToo() throws IOException {
        String sse = "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"x\",\"usage\":{\"input_tokens\":4}}}\n\n"
                + "data: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":1}}\n\n"
                + "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                + "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
                + "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n"
                + "data: {\"type\":\"message_stop\"}\n\n";
        try (MessagesChunkStream s = stream(response(sse))) {
            assertThat(readAll(s)).containsExactly(
                    new StreamChunk("m1", "x", T, List.of(new ChunkChoice(0, Role.ASSISTANT, null, List.of(), null, null)), usage(4, 1, null, null),
                            Map.of(), FrameKind.METADATA),
                    content("m1", "x", "Hi"),
                    finish("m1", "x", "stop", usage(4, 2, null, null)));
        }
    }

    @Test
    void theTranslatorHoldsTheRoleFromMessageStart_aHeartbeatDoesNotUseItUp_onlyTheFirstRealChunkGetsIt() throws IOException {
        StreamTranslator t = new StreamTranslator(T);
        assertThat(t.onEvent("message_start", Map.of("type", "message_start", "message", Map.of("id", "m1", "model", "x")))).isNull();
        assertThat(t.onEvent("ping", Map.of("type", "ping"))).isEqualTo(StreamChunk.heartbeat("m1", "x"));
        assertThat(t.onEvent(null, Map.of("type", "content_block_start", "index", 0L, "content_block", Map.of("type", "thinking", "thinking", ""))))
                .isNull();
        assertThat(t.onEvent(null, Map.of("type", "content_block_delta", "index", 0L, "delta", Map.of("type", "signature_delta", "signature", "s"))))
                .isNull();
        assertThat(t.onEvent(null, Map.of("type", "content_block_delta", "index", 0L, "delta", Map.of("type", "thinking_delta", "thinking", ""))))
                .isEqualTo(first(reasoning("m1", "x", "")));
        assertThat(t.onEvent(null, Map.of("type", "content_block_delta", "index", 0L, "delta", Map.of("type", "thinking_delta", "thinking", "a"))))
                .isEqualTo(reasoning("m1", "x", "a"));
        assertThat(t.onEvent("ping", Map.of("type", "ping"))).isEqualTo(StreamChunk.heartbeat("m1", "x"));
        assertThat(t.stopped()).isFalse();
    }

    @Test
    void anEmptyBodyIsAnIOException() {
        MessagesChunkStream s = stream(response(""));
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("before it finished");
        s.close();
    }

    @Test
    void anUnreadableEventIsAnIOException() {
        MessagesChunkStream s = stream(response("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n\n"));
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("unreadable stream event 'content_block_delta'");
    }

    @Test
    void inputJsonForABlockThatIsNoToolCallIsAnIOException() {
        MessagesChunkStream s = stream(response("data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                + "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"));
        assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("not a tool_use block");
    }

    @Test
    void unknownEventsAndBlocksAreSkipped_theEventNameServesWhenDataHasNoType() throws IOException {
        String sse = "event: message_start\ndata: {\"message\":{\"id\":\"m1\",\"model\":\"x\",\"usage\":{\"input_tokens\":3}}}\n\n"
                + "event: some_new_event\ndata: {\"type\":\"some_new_event\",\"foo\":1}\n\n"
                + "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"s\",\"name\":\"web_search\",\"input\":{}}}\n\n"
                + "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\",\"citation\":{}}}\n\n"
                + "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
                + ": a comment line\n\n"
                + "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"Hi\"}}\n\n"
                + "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"},\"usage\":{\"output_tokens\":2}}\n\n"
                + "event: message_stop\ndata: {}\n\n";
        try (MessagesChunkStream s = stream(response(sse))) {
            assertThat(readAll(s)).containsExactly(first(content("m1", "x", "Hi")),
                    finish("m1", "x", "content_filter", usage(3, 2, null, null)));
        }
    }

    @Test
    void aToolCallWhoseInputCameWhole_isSentWholeAtBlockStop_theToolCallStartCarriesTheRole() throws IOException {
        String sse = "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"x\"}}\n\n"
                + "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{\"a\":1}}}\n\n"
                + "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
                + "data: {\"type\":\"message_stop\"}\n\n";
        try (MessagesChunkStream s = stream(response(sse))) {
            assertThat(readAll(s)).containsExactly(first(tool("m1", "x", 0, "t1", "f", "")), tool("m1", "x", 0, null, null, "{\"a\":1}"));
        }
    }

    @Test
    void anAbandonedStreamIsClosedWithoutReadingTheRest() throws IOException {
        var response = response(Golden.read("stream/text.sse"));
        MessagesChunkStream s = stream(response);
        s.next();
        s.close();
        s.close(); // idempotent
        assertThat(response.closed).isTrue();
        assertThat(response.bodyAtEnd()).isFalse();
    }

    @Test
    void chunksAreDeliveredAsEventsArrive_nothingIsReadAhead() throws IOException {
        String[] events = Golden.read("stream/text.sse").split("(?<=\n\n)");
        GatedStream body = new GatedStream(events);
        var response = new FakeUpstream.FakeResponse(200, Map.of(), body);
        try (MessagesChunkStream s = stream(response)) {
            String id = "msg_01Stream";
            String model = "claude-sonnet-4-5-20250929";
            body.release(3); // message_start and content_block_start (nothing to emit), then ping
            assertThat(s.next()).isEqualTo(StreamChunk.heartbeat(id, model));
            body.release(1);
            assertThat(s.next()).isEqualTo(first(content(id, model, "Hello")));
            body.release(events.length);
            assertThat(readAll(s)).containsExactly(content(id, model, ", wörld! 😀\n"), finish(id, model, "stop", usage(25, 15, 0L, 0L)));
        }
    }

    /** A body that hands out one event per read, and fails the test if read beyond what was released. */
    private static final class GatedStream extends InputStream {
        private final String[] events;
        private int next;
        private int released;
        private byte[] current = new byte[0];
        private int pos;

        GatedStream(String[] events) {
            this.events = events;
        }

        void release(int n) {
            released = Math.min(events.length, released + n);
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= current.length) {
                if (next >= events.length) {
                    return -1;
                }
                if (next >= released) {
                    throw new AssertionError("the stream read ahead: event " + next + " was not sent yet");
                }
                current = events[next++].getBytes(StandardCharsets.UTF_8);
                pos = 0;
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
