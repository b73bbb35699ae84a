package dev.sluice.plugin.codex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.toolkit.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Responses stream events translated to chat chunks, one event at a time. */
class ResponsesEventsTest {

    private static List<StreamChunk> feed(ResponsesEvents events, String... json) throws IOException {
        List<StreamChunk> out = new ArrayList<>();
        for (String e : json) {
            out.addAll(events.feed(Json.parseObject(e)));
        }
        return out;
    }

    @Test
    void aFunctionCallThatArrivesWholeInItsDoneEventIsOneToolCall() throws IOException {
        ResponsesEvents events = new ResponsesEvents("gpt-5", 7L);

        List<StreamChunk> chunks = feed(events, ResponsesStreams.created("gpt-5"),
                "{\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"function_call\",\"call_id\":\"call_1\","
                        + "\"name\":\"run\",\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\"}}",
                ResponsesStreams.completed("gpt-5", 1, 1));

        List<ToolCallDelta> calls = chunks.stream().flatMap(c -> c.choices().stream()).flatMap(c -> c.toolCalls().stream()).toList();
        assertThat(calls).containsExactly(new ToolCallDelta(0, "call_1", "run", "{\"cmd\":\"ls\"}"));
        assertThat(chunks.get(chunks.size() - 1).choices().get(0).finishReason()).isEqualTo("tool_calls");
        assertThat(chunks).allSatisfy(c -> assertThat(c.id()).isEqualTo("resp_1"));
        assertThat(events.finished()).isTrue();
    }

    @Test
    void anIncompleteResponseFinishesWithLengthAndAnErrorEventFails() throws IOException {
        ResponsesEvents cut = new ResponsesEvents("gpt-5", 7L);
        List<StreamChunk> chunks = feed(cut, "{\"type\":\"response.incomplete\",\"response\":{\"id\":\"r\",\"status\":\"incomplete\","
                + "\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}");
        assertThat(chunks.get(chunks.size() - 1).choices().get(0).finishReason()).isEqualTo("length");

        ResponsesEvents failing = new ResponsesEvents("gpt-5", 7L);
        assertThatThrownBy(() -> feed(failing, "{\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}"))
                .isInstanceOf(IOException.class).hasMessage("upstream stream error: rate_limit_exceeded: slow down");
        assertThat(feed(new ResponsesEvents("gpt-5", 7L), "{\"type\":\"response.content_part.added\"}", "{\"no\":\"type\"}")).isEmpty();
    }
}
