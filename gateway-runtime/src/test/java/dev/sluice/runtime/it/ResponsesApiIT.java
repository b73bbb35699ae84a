package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.SseEvents;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/responses} (SPEC API-7) through a real server to an OpenAI-compatible mock: the
 * request translated to chat completions, the answer and the stream events as the OpenAI SDKs
 * parse them, tool calls both ways, and the refusals.
 */
class ResponsesApiIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private HttpResponse<String> post(String body) {
        return sluice.send("POST", "/v1/responses", key, body);
    }

    /** The events of an SSE body, as (type, data) in order. */
    private static List<JsonNode> events(String body) {
        List<JsonNode> out = new ArrayList<>();
        for (String block : body.split("\n\n")) {
            for (String line : block.split("\n")) {
                if (line.startsWith("data: ")) {
                    out.add(read(line.substring(6)));
                }
            }
        }
        return out;
    }

    @Test
    void aStringInputIsAnsweredWithAResponseObject_API7() throws Exception {
        upstream.enqueue(MockResponse.completion("Hello there"));

        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"instructions\":\"Be brief.\",\"input\":\"hi\",\"max_output_tokens\":50,"
                + "\"store\":false,\"metadata\":{\"k\":\"v\"}}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode resp = read(r.body());
        assertThat(resp.get("object").asText()).isEqualTo("response");
        assertThat(resp.get("id").asText()).startsWith("resp_");
        assertThat(resp.get("status").asText()).isEqualTo("completed");
        assertThat(resp.at("/output/0/type").asText()).isEqualTo("message");
        assertThat(resp.at("/output/0/role").asText()).isEqualTo("assistant");
        assertThat(resp.at("/output/0/content/0/type").asText()).isEqualTo("output_text");
        assertThat(resp.at("/output/0/content/0/text").asText()).isEqualTo("Hello there");
        assertThat(resp.at("/usage/input_tokens").isNumber()).isTrue();
        assertThat(resp.at("/metadata/k").asText()).isEqualTo("v");
        assertThat(resp.get("instructions").asText()).isEqualTo("Be brief.");
        JsonNode sent = read(upstream.takeRequest(Duration.ofSeconds(5)).body());
        assertThat(sent.get("model").asText()).isEqualTo("m");
        assertThat(sent.at("/messages/0/role").asText()).isEqualTo("system");
        assertThat(sent.at("/messages/0/content").asText()).isEqualTo("Be brief.");
        assertThat(sent.at("/messages/1/content").asText()).isEqualTo("hi");
        assertThat(sent.get("max_tokens").asInt()).isEqualTo(50);
    }

    @Test
    void codexStyleItemsAndToolsAreTranslatedAndBuiltInToolsDroppedAndNamed_API7() throws Exception {
        upstream.enqueue(MockResponse.completion("done"));

        HttpResponse<String> r = post("""
                {"model":"alpha/m","stream":false,"store":false,"parallel_tool_calls":false,
                 "input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},
                          {"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]},
                          {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"xyz"},
                          {"type":"function_call","call_id":"call_1","name":"shell","arguments":"{\\"command\\":[\\"ls\\"]}"},
                          {"type":"function_call_output","call_id":"call_1","output":"a.txt"}],
                 "tools":[{"type":"function","name":"shell","description":"Runs a command","strict":false,
                           "parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}}}},
                          {"type":"web_search"}],
                 "tool_choice":"auto","reasoning":{"effort":"high","summary":"auto"},
                 "include":["reasoning.encrypted_content"],"prompt_cache_key":"k1"}""");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Sluice-Dropped-Tools")).hasValue("web_search");
        JsonNode sent = read(upstream.takeRequest(Duration.ofSeconds(5)).body());
        assertThat(sent.at("/messages/0/role").asText()).isEqualTo("system");
        assertThat(sent.at("/messages/0/content").asText()).isEqualTo("You are Codex.");
        assertThat(sent.at("/messages/1/role").asText()).isEqualTo("user");
        assertThat(sent.at("/messages/2/role").asText()).isEqualTo("assistant");
        assertThat(sent.at("/messages/2/tool_calls/0/id").asText()).isEqualTo("call_1");
        assertThat(sent.at("/messages/2/tool_calls/0/function/name").asText()).isEqualTo("shell");
        assertThat(sent.at("/messages/3/role").asText()).isEqualTo("tool");
        assertThat(sent.at("/messages/3/tool_call_id").asText()).isEqualTo("call_1");
        assertThat(sent.at("/tools")).hasSize(1);
        assertThat(sent.at("/tools/0/function/name").asText()).isEqualTo("shell");
        assertThat(sent.get("reasoning_effort").asText()).isEqualTo("high");
        assertThat(sent.get("parallel_tool_calls").asBoolean()).isFalse();
        assertThat(sent.has("include")).isFalse();
        assertThat(sent.has("prompt_cache_key")).isFalse();
    }

    @Test
    void aStreamIsRelayedAsResponsesEventsEndingWithCompleted_API7() {
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).event(SseEvents.openAiDelta("Hel"))
                .event(SseEvents.openAiDelta("lo")).event(SseEvents.openAiFinish("stop")).event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"input\":\"hi\",\"stream\":true}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        List<JsonNode> events = events(r.body());
        assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("response.created", "response.in_progress",
                "response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
                "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed");
        assertThat(events).extracting(e -> e.get("sequence_number").asInt()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(events.get(6).get("text").asText()).isEqualTo("Hello");
        JsonNode done = events.getLast().get("response");
        assertThat(done.get("status").asText()).isEqualTo("completed");
        assertThat(done.at("/output/0/content/0/text").asText()).isEqualTo("Hello");
        assertThat(done.at("/usage/total_tokens").isNumber()).isTrue();
        assertThat(r.body()).contains("event: response.completed\ndata: ");
    }

    @Test
    void aStreamedToolCallBecomesAFunctionCallItem_API7() {
        String call1 = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"shell\","
                + "\"arguments\":\"{\\\"command\\\":\"}}]},\"finish_reason\":null}]}\n\n";
        String call2 = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"[\\\"ls\\\"]}\"}}]},\"finish_reason\":null}]}\n\n";
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).event(call1).event(call2)
                .event(SseEvents.openAiFinish("tool_calls")).event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"input\":\"list\",\"stream\":true,"
                + "\"tools\":[{\"type\":\"function\",\"name\":\"shell\",\"parameters\":{\"type\":\"object\"}}]}");

        List<JsonNode> events = events(r.body());
        assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("response.created", "response.in_progress",
                "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
                "response.function_call_arguments.done", "response.output_item.done", "response.completed");
        JsonNode item = events.get(6).get("item");
        assertThat(item.get("type").asText()).isEqualTo("function_call");
        assertThat(item.get("call_id").asText()).isEqualTo("call_9");
        assertThat(item.get("name").asText()).isEqualTo("shell");
        assertThat(item.get("arguments").asText()).isEqualTo("{\"command\":[\"ls\"]}");
        assertThat(events.getLast().at("/response/output/0/call_id").asText()).isEqualTo("call_9");
    }

    @Test
    void previousResponseIdIsAClear400AndABadItemNamesItsPath_API7() {
        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"input\":\"hi\",\"previous_response_id\":\"resp_1\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(read(r.body()).at("/error/param").asText()).isEqualTo("previous_response_id");
        assertThat(read(r.body()).at("/error/message").asText()).contains("send the whole conversation in 'input'");

        HttpResponse<String> bad = post("{\"model\":\"alpha/m\",\"input\":[{\"type\":\"message\",\"role\":\"robot\",\"content\":\"x\"}]}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(read(bad.body()).at("/error/param").asText()).isEqualTo("input[0].role");

        HttpResponse<String> unknown = post("{\"model\":\"nope/m\",\"input\":\"hi\"}");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(read(unknown.body()).at("/error/code").asText()).isEqualTo("model_not_found");
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void aStalledStreamEndsWithAnErrorEventAndResponseFailed_ST1() {
        HttpResponse<String> patched = sluice.send("PATCH", "/api/resilience", SluiceHarness.ADMIN_KEY,
                "{\"streamRecovery\":{\"idleTimeoutMs\":1000,\"keepAliveIntervalMs\":1000}}");
        assertThat(patched.statusCode()).isEqualTo(200);
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("Hel")).thenHold());

        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"input\":\"hi\",\"stream\":true}");

        List<JsonNode> events = events(r.body());
        assertThat(events).extracting(e -> e.get("type").asText()).endsWith("response.output_text.delta", "error", "response.failed");
        assertThat(events.get(events.size() - 2).get("code").asText()).isEqualTo("STREAM_STALL_TIMEOUT");
        assertThat(events.getLast().at("/response/status").asText()).isEqualTo("failed");
        assertThat(events.getLast().at("/response/error/code").asText()).isEqualTo("STREAM_STALL_TIMEOUT");
    }

    @Test
    void codexsCustomApplyPatchToolRoundTripsAsAFunctionOfOneStringInput_API7() {
        String patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch";
        String args = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("input", patch).toString();
        String call = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_p\",\"type\":\"function\",\"function\":{\"name\":\"apply_patch\","
                + "\"arguments\":" + new com.fasterxml.jackson.databind.ObjectMapper().getNodeFactory().textNode(args) + "}}]},\"finish_reason\":null}]}\n\n";
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiRole()).event(call).event(SseEvents.openAiFinish("tool_calls"))
                .event(SseEvents.DONE).thenEnd());

        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"stream\":true,\"input\":\"add a file\",\"tools\":[{\"type\":\"custom\","
                + "\"name\":\"apply_patch\",\"description\":\"Edit files\",\"format\":{\"type\":\"grammar\",\"syntax\":\"lark\","
                + "\"definition\":\"start: /.+/\"}}]}");

        assertThat(r.headers().firstValue("X-Sluice-Dropped-Tools")).isEmpty();
        List<JsonNode> events = events(r.body());
        JsonNode done = events.stream().filter(e -> e.get("type").asText().equals("response.output_item.done")).findFirst().orElseThrow()
                .get("item");
        assertThat(done.get("type").asText()).isEqualTo("custom_tool_call");
        assertThat(done.get("name").asText()).isEqualTo("apply_patch");
        assertThat(done.get("call_id").asText()).isEqualTo("call_p");
        assertThat(done.get("input").asText()).isEqualTo(patch);
        assertThat(events).extracting(e -> e.get("type").asText()).contains("response.custom_tool_call_input.done")
                .doesNotContain("response.function_call_arguments.delta");
        JsonNode sent = read(upstream.requests().getLast().body());
        assertThat(sent.at("/tools/0/function/name").asText()).isEqualTo("apply_patch");
        assertThat(sent.at("/tools/0/function/parameters/required/0").asText()).isEqualTo("input");

        // the next turn sends the call and its output back
        upstream.enqueue(MockResponse.completion("patched"));
        HttpResponse<String> next = post("{\"model\":\"alpha/m\",\"input\":[{\"role\":\"user\",\"content\":\"add a file\"},"
                + "{\"type\":\"custom_tool_call\",\"call_id\":\"call_p\",\"name\":\"apply_patch\",\"input\":\"*** Begin Patch\"},"
                + "{\"type\":\"custom_tool_call_output\",\"call_id\":\"call_p\",\"output\":\"Success\"}],"
                + "\"tools\":[{\"type\":\"custom\",\"name\":\"apply_patch\"}]}");
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        JsonNode second = read(upstream.requests().getLast().body());
        assertThat(second.at("/messages/1/tool_calls/0/function/arguments").asText()).isEqualTo("{\"input\":\"*** Begin Patch\"}");
        assertThat(second.at("/messages/2/role").asText()).isEqualTo("tool");
        assertThat(second.at("/messages/2/content").asText()).isEqualTo("Success");
    }

    @Test
    void imagesAToolReturnsFollowTheToolResultAsAUserTurn_API7() {
        upstream.enqueue(MockResponse.completion("I see it"));

        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"input\":[{\"role\":\"user\",\"content\":\"look\"},"
                + "{\"type\":\"function_call\",\"call_id\":\"c9\",\"name\":\"view_image\",\"arguments\":\"{}\"},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c9\",\"output\":[{\"type\":\"input_image\","
                + "\"image_url\":\"data:image/png;base64,AAAA\",\"detail\":\"high\"}]},"
                + "{\"type\":\"web_search_call\",\"id\":\"ws_1\",\"status\":\"completed\"}]}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode sent = read(upstream.requests().getLast().body());
        assertThat(sent.at("/messages/2/role").asText()).isEqualTo("tool");
        assertThat(sent.at("/messages/3/role").asText()).isEqualTo("user");
        assertThat(sent.at("/messages/3/content/1/image_url/url").asText()).isEqualTo("data:image/png;base64,AAAA");
    }

    @Test
    void backgroundIsServedSynchronouslyWithAWarning_OF1() {
        upstream.enqueue(MockResponse.completion("now"));
        HttpResponse<String> r = post("{\"model\":\"alpha/m\",\"input\":\"hi\",\"background\":true}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Sluice-Warning")).hasValueSatisfying(v -> assertThat(v).contains("synchronously"));
        assertThat(read(r.body()).get("status").asText()).isEqualTo("completed");
    }
}
