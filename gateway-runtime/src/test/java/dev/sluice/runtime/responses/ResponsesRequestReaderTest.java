package dev.sluice.runtime.responses;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.stream.Progress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Regressions found by review: the Responses translation keeps chat completions' turn rules and one message item. */
class ResponsesRequestReaderTest {

    @Test
    void imagesOfParallelToolResultsFollowTheWholeRunOfToolMessages_API7() {
        String body = """
                {"model":"p/m","input":[
                  {"type":"message","role":"user","content":"look"},
                  {"type":"function_call","call_id":"A","name":"view_image","arguments":"{}"},
                  {"type":"function_call","call_id":"B","name":"shell","arguments":"{}"},
                  {"type":"function_call_output","call_id":"A","output":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]},
                  {"type":"function_call_output","call_id":"B","output":"ok"},
                  {"type":"message","role":"user","content":"and now?"}
                ]}""";
        List<ChatMessage> msgs = new ResponsesCodec(new ObjectMapper()).read(body.getBytes(StandardCharsets.UTF_8)).chat().messages();
        List<String> roles = msgs.stream().map(m -> m.role() + (m.toolCallId() != null ? "(" + m.toolCallId() + ")" : "")).toList();
        // chat completions: an assistant message with tool_calls must be followed by the tool messages of every call
        assertThat(roles).containsExactly("USER", "ASSISTANT", "TOOL(A)", "TOOL(B)", "USER", "USER");
    }

    @Test
    void emptyReasoningDeltasNeitherSplitTheMessageNorSuspendTheThroughputWatchdog_ST3() {
        ResponsesStreamTranslator t = new ResponsesCodec(new ObjectMapper()).stream("resp_1", "m", 1, Map.of(), Set.of());
        StringBuilder sse = new StringBuilder();
        for (String word : List.of("Hel", "lo", " there")) {
            sse.append(new String(t.next(new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, word, null, null, "")), null,
                    Map.of())), StandardCharsets.UTF_8));
        }
        sse.append(new String(t.end(), StandardCharsets.UTF_8));
        assertThat(sse.toString().lines().filter(l -> l.equals("event: response.output_item.added")).count()).isEqualTo(1);
        assertThat(Progress.suspendsThroughput(new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, "x", null, null, "")), null,
                Map.of()))).isFalse();
    }

    private static final String FUTURE = """
            {"model":"openai/gpt-5","stream":true,"store":false,"brand_new_field":{"a":[1,2]},
             "input":[{"type":"message","role":"user","content":"hi"},{"type":"future_item","x":1}],
             "tools":[{"type":"function","name":"shell","parameters":{"type":"object"}},{"type":"future_tool","y":[true]}],
             "include":["reasoning.encrypted_content","future.include"]}""";

    @Test
    void anInventedItemTypeIsKeptAsTheTranslatedPathsRefusalNamingItsPathNotThrown_issue32() {
        ResponsesRequest r = new ResponsesCodec(new ObjectMapper()).read(FUTURE.getBytes(StandardCharsets.UTF_8));

        assertThat(r.untranslatable()).isNotNull();
        assertThat(r.untranslatable().param()).isEqualTo("input[1].type");
        assertThat(r.untranslatable().getMessage()).contains("'future_item' is not supported");
        assertThat(r.chat().model()).as("routing facts read leniently").isEqualTo("openai/gpt-5");
        assertThat(r.chat().stream()).isTrue();
    }

    @Test
    void anInventedItemTypeReachesAPassthroughUpstreamEqualAsJsonButForTheModel_issue32() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ResponsesCodec codec = new ResponsesCodec(mapper);
        byte[] body = FUTURE.getBytes(StandardCharsets.UTF_8);
        codec.read(body);

        byte[] upstream = codec.forUpstream(body, "gpt-5");

        com.fasterxml.jackson.databind.node.ObjectNode expected = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(body);
        expected.put("model", "gpt-5");
        assertThat(mapper.readTree(upstream)).isEqualTo(expected);
        assertThat(mapper.readTree(upstream).at("/input/1").toString()).isEqualTo("{\"type\":\"future_item\",\"x\":1}");
    }

    @Test
    void aTranslatableRequestHasNoRefusal_issue32() {
        ResponsesRequest r = new ResponsesCodec(new ObjectMapper()).read("{\"model\":\"p/m\",\"input\":\"hi\"}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(r.untranslatable()).isNull();
        assertThat(r.chat().messages()).hasSize(1);
    }
}
