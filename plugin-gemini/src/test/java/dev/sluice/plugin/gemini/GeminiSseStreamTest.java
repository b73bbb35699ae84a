package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import static dev.sluice.plugin.gemini.Fakes.golden;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Gemini {@code alt=sse} streams → canonical chunks, through an in-memory upstream response. */
class GeminiSseStreamTest {

    private static final long CREATED = 1_750_000_000L;

    /** A golden SSE file as network segments, one event per segment, with Gemini's CRLF line ends. */
    private static List<String> events(String golden, boolean crlf) {
        List<String> out = new ArrayList<>();
        for (String e : golden(golden).split("\n\n")) {
            if (!e.isBlank()) {
                String event = e.strip() + "\n\n";
                out.add(crlf ? event.replace("\n", "\r\n") : event);
            }
        }
        return out;
    }

    private static GeminiSseStream stream(Fakes.FakeResponse response) {
        return new GeminiSseStream(response, new StreamTranslator("gemini-2.5-flash", CREATED, new Fakes.CountingIds()));
    }

    private static List<StreamChunk> readAll(GeminiSseStream s) throws IOException {
        List<StreamChunk> chunks = new ArrayList<>();
        StreamChunk c;
        while ((c = s.next()) != null) {
            chunks.add(c);
        }
        return chunks;
    }

    private static ChunkChoice only(StreamChunk c) {
        assertThat(c.choices()).hasSize(1);
        return c.choices().get(0);
    }

    @Test
    void textArrivesInSeveralFragmentsAndEndsWithOneFinishAndUsageChunk() throws IOException {
        Fakes.FakeResponse response = Fakes.FakeResponse.sse(events("stream-text.sse", true));
        List<StreamChunk> chunks;
        try (GeminiSseStream s = stream(response)) {
            chunks = readAll(s);
        }
        assertThat(chunks).hasSize(4);
        assertThat(chunks).allSatisfy(c -> {
            assertThat(c.id()).isEqualTo("sse-text-1");
            assertThat(c.model()).isEqualTo("gemini-2.5-flash");
            assertThat(c.created()).isEqualTo(CREATED);
        });
        assertThat(chunks.get(0).choices()).containsExactly(new ChunkChoice(0, Role.ASSISTANT, "The", List.of(), null, null));
        assertThat(chunks.get(1).choices()).containsExactly(
                new ChunkChoice(0, null, " quick brown fox jumps over", List.of(), null, null));
        assertThat(chunks.get(2).choices()).containsExactly(new ChunkChoice(0, null, " the lazy dog.", List.of(), null, null));
        assertThat(chunks.subList(0, 3)).allSatisfy(c -> {
            assertThat(c.kind()).isEqualTo(FrameKind.CONTENT);
            assertThat(c.usage()).as("cumulative usage on every fragment is sent once, at the end").isNull();
        });
        StreamChunk last = chunks.get(3);
        assertThat(last.kind()).isEqualTo(FrameKind.METADATA);
        assertThat(last.choices()).containsExactly(new ChunkChoice(0, null, null, List.of(), "stop", null));
        assertThat(last.usage()).isEqualTo(new Usage(8, 10, 18));
        assertThat(response.eofBeforeClose()).as("read to EOF before close: the connection is reused").isTrue();
        assertThat(response.closeCount()).isEqualTo(1);
    }

    @Test
    void aLineWithoutEndFailsAtTheEventLimitInsteadOfFillingTheHeap_SEC6() {
        assertThat(GeminiSseStream.MAX_EVENT_CHARS).isEqualTo(4 * 1024 * 1024);
        long[] served = {0};
        java.io.InputStream endless = new java.io.InputStream() {
            @Override
            public int read() {
                served[0]++;
                return 'x';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                java.util.Arrays.fill(b, off, off + len, (byte) 'x');
                served[0] += len;
                return len;
            }
        };
        dev.sluice.api.upstream.UpstreamResponse response = new dev.sluice.api.upstream.UpstreamResponse() {
            @Override
            public dev.sluice.api.upstream.ResponseHead head() {
                return new dev.sluice.api.upstream.ResponseHead(200, Map.of());
            }

            @Override
            public java.io.InputStream body() {
                return endless;
            }

            @Override
            public void close() {
            }
        };
        try (GeminiSseStream s = new GeminiSseStream(response, new StreamTranslator("gemini-2.5-flash", CREATED, new Fakes.CountingIds()))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(s::next).isInstanceOf(java.net.ProtocolException.class)
                    .hasMessageContaining("longer than " + GeminiSseStream.MAX_EVENT_CHARS + " characters");
        }
        assertThat(served[0]).isLessThan(GeminiSseStream.MAX_EVENT_CHARS + 64 * 1024);
    }

    @Test
    void plainLfLineEndsWorkToo() throws IOException {
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events("stream-text.sse", false)))) {
            assertThat(readAll(s)).extracting(c -> c.choices().get(0).contentDelta())
                    .containsExactly("The", " quick brown fox jumps over", " the lazy dog.", null);
        }
    }

    @Test
    void chunksAreDeliveredAsEventsArriveNotAfterTheWholeStream() throws IOException {
        Fakes.FakeResponse response = Fakes.FakeResponse.sse(events("stream-text.sse", true));
        Fakes.SegmentedBody body = response.segmentedBody();
        try (GeminiSseStream s = stream(response)) {
            assertThat(s.next().choices().get(0).contentDelta()).isEqualTo("The");
            assertThat(body.segmentsDelivered()).as("only the first event was read").isEqualTo(1);
            assertThat(s.next().choices().get(0).contentDelta()).isEqualTo(" quick brown fox jumps over");
            assertThat(body.segmentsDelivered()).isEqualTo(2);
            assertThat(body.segmentsDelivered()).isLessThan(body.segmentCount());
        }
    }

    @Test
    void thoughtsBecomeReasoningFramesBeforeTheAnswer() throws IOException {
        List<StreamChunk> chunks;
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events("stream-thoughts.sse", true)))) {
            chunks = readAll(s);
        }
        assertThat(chunks).extracting(StreamChunk::kind).containsExactly(FrameKind.REASONING, FrameKind.REASONING,
                FrameKind.CONTENT, FrameKind.CONTENT, FrameKind.METADATA);
        assertThat(only(chunks.get(0))).isEqualTo(new ChunkChoice(0, Role.ASSISTANT, null, List.of(), null,
                "**Planning the sum**\n\nI need to add 17 and 25."));
        assertThat(only(chunks.get(1))).isEqualTo(new ChunkChoice(0, null, null, List.of(), null, " Done thinking."));
        assertThat(only(chunks.get(2))).isEqualTo(new ChunkChoice(0, null, "The answer", List.of(), null, null));
        assertThat(only(chunks.get(3))).isEqualTo(new ChunkChoice(0, null, " is 42.", List.of(), null, null));
        assertThat(only(chunks.get(4)).finishReason()).isEqualTo("stop");
        assertThat(chunks.get(4).model()).isEqualTo("gemini-2.5-pro");
        assertThat(chunks.get(4).usage()).isEqualTo(new Usage(10, 70, 80,
                Map.of("completion_tokens_details", "{\"reasoning_tokens\":65}")));
    }

    @Test
    void aFunctionCallArrivesWholeInOneToolCallChunkAndFinishesWithToolCalls() throws IOException {
        List<StreamChunk> chunks;
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events("stream-function-call.sse", true)))) {
            chunks = readAll(s);
        }
        assertThat(chunks).extracting(StreamChunk::kind)
                .containsExactly(FrameKind.CONTENT, FrameKind.CONTENT, FrameKind.CONTENT, FrameKind.METADATA);
        assertThat(only(chunks.get(0))).isEqualTo(new ChunkChoice(0, Role.ASSISTANT, "Let me look that up.", List.of(), null, null));
        ChunkChoice first = only(chunks.get(1));
        assertThat(first.role()).isNull();
        assertThat(first.toolCalls()).hasSize(1);
        ToolCallDelta paris = first.toolCalls().get(0);
        assertThat(paris.index()).isZero();
        assertThat(paris.id()).isEqualTo("call_1");
        assertThat(paris.name()).isEqualTo("get_weather");
        assertThat(Json.parse(paris.argumentsDelta())).isEqualTo(Json.parse("{\"city\":\"Paris\",\"unit\":\"celsius\"}"));
        assertThat(only(chunks.get(2)).toolCalls())
                .containsExactly(new ToolCallDelta(1, "call_2", "get_weather", "{\"city\":\"Rome\"}"));
        assertThat(only(chunks.get(3)).finishReason()).isEqualTo("tool_calls");
        assertThat(chunks.get(3).usage()).isEqualTo(new Usage(95, 36, 131));
    }

    @Test
    void aStreamThatEndsWithoutAFinishReasonIsTruncated() throws IOException {
        Fakes.FakeResponse response = Fakes.FakeResponse.sse(events("stream-truncated.sse", true));
        try (GeminiSseStream s = stream(response)) {
            assertThat(s.next().choices().get(0).contentDelta()).isEqualTo("Once upon");
            assertThat(s.next().choices().get(0).contentDelta()).isEqualTo(" a time");
            assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("before it finished");
            assertThat(s.next()).as("after the failure the stream stays ended").isNull();
        }
        assertThat(response.closed()).isTrue();
    }

    @Test
    void anEmptyStreamIsTruncatedToo() {
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(List.of()))) {
            assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("before it finished");
        }
    }

    @Test
    void aConnectionResetMidStreamIsAnIOException() throws IOException {
        List<String> events = events("stream-text.sse", true).subList(0, 1);
        Fakes.FakeResponse response = new Fakes.FakeResponse(200, Map.of(),
                new Fakes.SegmentedBody(events).failingAtEnd(new SocketException("Connection reset")));
        try (GeminiSseStream s = stream(response)) {
            assertThat(s.next()).isNotNull();
            assertThatThrownBy(s::next).isInstanceOf(SocketException.class).hasMessage("Connection reset");
        }
    }

    @Test
    void anErrorInsideTheStreamIsAnIOExceptionNamingIt() throws IOException {
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events("stream-error.sse", true)))) {
            assertThat(s.next().choices().get(0).contentDelta()).isEqualTo("Partial");
            assertThatThrownBy(s::next).isInstanceOf(IOException.class)
                    .hasMessageContaining("UNAVAILABLE").hasMessageContaining("overloaded");
        }
    }

    @Test
    void anUnreadableEventIsAnIOException() {
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(List.of("data: {\"candidates\": [\n\n")))) {
            assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("unreadable stream event");
        }
    }

    @Test
    void aBlockedPromptIsOneContentFilterChunk() throws IOException {
        List<StreamChunk> chunks;
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events("stream-prompt-blocked.sse", true)))) {
            chunks = readAll(s);
        }
        assertThat(chunks).hasSize(1);
        StreamChunk c = chunks.get(0);
        assertThat(c.kind()).isEqualTo(FrameKind.METADATA);
        assertThat(c.id()).isEqualTo("sse-blocked-1");
        assertThat(c.choices()).containsExactly(new ChunkChoice(0, Role.ASSISTANT, null, List.of(), "content_filter", null,
                Map.of(), Map.of("native_finish_reason", "\"SAFETY\"")));
        assertThat(c.usage()).isEqualTo(new Usage(21, 0, 21));
    }

    @Test
    void severalCandidatesFinishSeparatelyAndUsageComesWhenAllHave() throws IOException {
        List<StreamChunk> chunks;
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events("stream-candidates.sse", false)))) {
            chunks = readAll(s);
        }
        assertThat(chunks.get(0).id()).isEqualTo("resp-1");
        assertThat(chunks).extracting(c -> c.choices().get(0).index() + ":" + c.choices().get(0).contentDelta() + ":"
                + c.choices().get(0).finishReason() + ":" + c.usage())
                .containsExactly("0:A:null:null", "1:B:null:null", "0:!:null:null", "0:null:stop:null", "1:?:null:null",
                        "1:null:length:" + new Usage(3, 4, 7));
        assertThat(chunks.get(0).choices().get(0).role()).isEqualTo(Role.ASSISTANT);
        assertThat(chunks.get(1).choices().get(0).role()).isEqualTo(Role.ASSISTANT);
        assertThat(chunks.get(2).choices().get(0).role()).isNull();
    }

    @Test
    void usageArrivingAfterTheLastFinishIsAUsageOnlyChunk() throws IOException {
        List<String> events = Arrays.asList(
                "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]},\"finishReason\":\"STOP\"}],\"responseId\":\"r\"}\n\n",
                "data: {\"usageMetadata\":{\"promptTokenCount\":2,\"candidatesTokenCount\":1,\"totalTokenCount\":3}}\n\n",
                ": a comment line\nevent: message\n\n");
        List<StreamChunk> chunks;
        try (GeminiSseStream s = stream(Fakes.FakeResponse.sse(events))) {
            chunks = readAll(s);
        }
        assertThat(chunks).hasSize(3);
        assertThat(chunks.get(1).usage()).isNull();
        assertThat(chunks.get(2).choices()).isEmpty();
        assertThat(chunks.get(2).kind()).isEqualTo(FrameKind.METADATA);
        assertThat(chunks.get(2).usage()).isEqualTo(new Usage(2, 1, 3));
    }

    @Test
    void aFinishedStreamClosedBeforeItsEndIsDrainedSoTheConnectionIsReused() throws IOException {
        List<String> events = new ArrayList<>(events("stream-text.sse", true));
        events.add("\r\n");
        Fakes.FakeResponse response = Fakes.FakeResponse.sse(events);
        GeminiSseStream s = stream(response);
        for (int i = 0; i < 4; i++) {
            assertThat(s.next()).isNotNull();
        }
        s.close();
        assertThat(response.eofBeforeClose()).isTrue();
        s.close();
        assertThat(response.closeCount()).as("close is idempotent").isEqualTo(1);
    }

    @Test
    void anAbandonedStreamIsClosedWithoutDraining() throws IOException {
        Fakes.FakeResponse response = Fakes.FakeResponse.sse(events("stream-text.sse", true));
        GeminiSseStream s = stream(response);
        assertThat(s.next()).isNotNull();
        s.close();
        assertThat(response.closed()).isTrue();
        assertThat(response.eofBeforeClose()).isFalse();
        assertThat(response.segmentedBody().segmentsDelivered()).isEqualTo(1);
        assertThat(s.next()).isNull();
    }
}
