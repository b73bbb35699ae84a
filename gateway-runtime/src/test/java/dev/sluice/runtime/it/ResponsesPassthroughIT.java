package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
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
 * {@code POST /v1/responses} passed through to upstreams that serve the Responses API themselves
 * (SPEC API-7, issue 14): the {@code openai} provider by its descriptor, any connection by
 * {@code responsesApi: true}; the body unchanged but for the model (built-in tools, reasoning
 * items, {@code include} reach the upstream), the answer and the stream byte for byte, watched;
 * an upstream that turns out not to serve {@code /responses} is translated instead.
 */
class ResponsesPassthroughIT {

    private static final String CODEX_BODY = """
            {"model":"%s","stream":%s,"store":false,"instructions":"You are Codex.",
             "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]},
                      {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA-opaque"}],
             "tools":[{"type":"function","name":"shell","strict":false,"parameters":{"type":"object","properties":{}}},
                      {"type":"web_search"}],
             "reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],
             "prompt_cache_key":"cache-1","background":true}""";

    private static final String ANSWER = "{\"id\":\"resp_up1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-5\","
            + "\"output\":[{\"type\":\"web_search_call\",\"id\":\"ws_1\",\"status\":\"completed\"},{\"type\":\"message\",\"id\":\"msg_1\","
            + "\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"two files\",\"annotations\":[]}]}],"
            + "\"usage\":{\"input_tokens\":5,\"output_tokens\":2,\"total_tokens\":7}}";

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private String openAiConnection(String extra) {
        return sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-openai-abcdef\","
                + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\",\"priority\":1" + extra + "}");
    }

    private HttpResponse<String> post(String model, boolean stream) {
        return sluice.send("POST", "/v1/responses", key, CODEX_BODY.formatted(model, stream));
    }

    private static String ev(String type, String json) {
        return SseEvents.event(type, json);
    }

    private static final String CREATED = ev("response.created", "{\"type\":\"response.created\",\"sequence_number\":0,"
            + "\"response\":{\"id\":\"resp_up1\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"gpt-5\",\"output\":[]}}");
    private static final String DELTA = ev("response.output_text.delta", "{\"type\":\"response.output_text.delta\",\"sequence_number\":1,"
            + "\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"two files\"}");
    private static final String COMPLETED = ev("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":2,"
            + "\"response\":" + ANSWER + "}");

    @Test
    void theOpenAiProviderGetsTheClientsBodyUnchangedButForTheModelAndTheAnswerAsItWrote() throws Exception {
        openAiConnection("");
        upstream.enqueue(MockResponse.json(200, ANSWER));

        HttpResponse<String> r = post("openai/gpt-5", false);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(read(r.body())).isEqualTo(read(ANSWER));
        assertThat(r.headers().firstValue("X-Sluice-Dropped-Tools")).as("built-in tools went through").isEmpty();
        assertThat(r.headers().firstValue("X-Sluice-Warning")).hasValueSatisfying(w -> assertThat(w).contains("synchronously"));
        RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(sent.path()).isEqualTo("/v1/responses");
        assertThat(sent.header("authorization")).isEqualTo("Bearer sk-upstream-openai-abcdef");
        JsonNode body = read(sent.body());
        JsonNode expected = read(CODEX_BODY.formatted("gpt-5", false));
        ((com.fasterxml.jackson.databind.node.ObjectNode) expected).remove("background");
        assertThat(body).as("unchanged but for the model, and background served synchronously").isEqualTo(expected);
    }

    @Test
    void aStreamIsRelayedByteForByte() throws Exception {
        openAiConnection("");
        upstream.enqueue(MockResponse.stream().event(CREATED).event(DELTA).event(COMPLETED).thenEnd());

        HttpResponse<String> r = post("openai/gpt-5", true);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(r.body()).isEqualTo(CREATED + DELTA + COMPLETED);
        assertThat(upstream.takeRequest(Duration.ofSeconds(5)).header("accept")).isEqualTo("text/event-stream");
    }

    @Test
    void aStreamThatStallsEndsWithErrorAndResponseFailedContinuingTheUpstreamsSequence_ST1() {
        openAiConnection("");
        sluice.send("PATCH", "/api/resilience", SluiceHarness.ADMIN_KEY, "{\"streamRecovery\":{\"idleTimeoutMs\":1000,\"keepAliveIntervalMs\":1000}}");
        upstream.enqueue(MockResponse.stream().event(CREATED).event(DELTA).thenHold());

        HttpResponse<String> r = post("openai/gpt-5", true);

        assertThat(r.statusCode()).isEqualTo(200);
        List<JsonNode> events = events(r.body());
        assertThat(events).extracting(e -> e.get("type").asText())
                .containsExactly("response.created", "response.output_text.delta", "error", "response.failed");
        assertThat(events.get(2).get("code").asText()).isEqualTo("STREAM_STALL_TIMEOUT");
        assertThat(events.get(3).at("/response/id").asText()).isEqualTo("resp_up1");
        assertThat(events.get(3).at("/response/status").asText()).isEqualTo("failed");
        assertThat(events).extracting(e -> e.get("sequence_number").asInt()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void anEarlyRateLimitEventFailsOverToTheNextConnection() throws Exception {
        openAiConnection("");
        MockUpstream second = MockUpstream.start();
        try {
            sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-openai-2\","
                    + "\"baseUrl\":\"" + second.baseUrl() + "/v1\",\"priority\":2}");
            upstream.enqueue(MockResponse.stream().event(CREATED).event(ev("response.failed", "{\"type\":\"response.failed\","
                    + "\"sequence_number\":1,\"response\":{\"id\":\"resp_up1\",\"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\","
                    + "\"message\":\"Rate limit reached\"}}}")).thenEnd());
            second.enqueue(MockResponse.stream().event(CREATED).event(DELTA).event(COMPLETED).thenEnd());

            HttpResponse<String> r = post("openai/gpt-5", true);

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).as("nothing of the failed attempt reached the client").isEqualTo(CREATED + DELTA + COMPLETED);
            assertThat(second.requestCount()).isEqualTo(1);
        } finally {
            second.close();
        }
    }

    @Test
    void anUpstreamThatDoesNotServeResponsesIsTranslatedAtOnceAndFromThenOn() throws Exception {
        openAiConnection("");
        upstream.enqueue(MockResponse.json(404, "{\"error\":{\"message\":\"Unknown route: POST /v1/responses\",\"type\":\"not_found\"}}"));
        upstream.enqueue(MockResponse.completion("hello"));
        upstream.enqueue(MockResponse.completion("again"));

        HttpResponse<String> first = post("openai/gpt-5", false);
        HttpResponse<String> second = post("openai/gpt-5", false);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(read(first.body()).at("/output/0/content/0/text").asText()).isEqualTo("hello");
        assertThat(first.headers().firstValue("X-Sluice-Dropped-Tools")).hasValue("web_search");
        assertThat(read(second.body()).at("/output/0/content/0/text").asText()).isEqualTo("again");
        assertThat(upstream.requests()).extracting(RecordedRequest::path)
                .containsExactly("/v1/responses", "/v1/chat/completions", "/v1/chat/completions");
        JsonNode conn = read(sluice.send("GET", "/api/providers", SluiceHarness.ADMIN_KEY, null).body());
        assertThat(conn.toString()).as("the 404 was not the connection's failure").doesNotContain("\"lastErrorType\":\"");
    }

    @Test
    void aConnectionDecidesForItself() throws Exception {
        // a custom OpenAI-compatible provider is translated unless it opts in; the openai provider passes through unless it opts out
        sluice.addConnection("{\"provider\":\"reseller\",\"authType\":\"apikey\",\"apiKey\":\"sk-r\",\"baseUrl\":\""
                + upstream.baseUrl() + "/v1\",\"providerSpecificData\":{\"responsesApi\":true}}");
        sluice.addConnection("{\"provider\":\"plain\",\"authType\":\"apikey\",\"apiKey\":\"sk-p\",\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
        openAiConnection(",\"providerSpecificData\":{\"responsesApi\":false}");
        upstream.enqueue(MockResponse.json(200, ANSWER));
        upstream.enqueue(MockResponse.completion("translated"));
        upstream.enqueue(MockResponse.completion("translated too"));

        assertThat(post("reseller/gpt-5", false).statusCode()).isEqualTo(200);
        assertThat(post("plain/gpt-5", false).statusCode()).isEqualTo(200);
        assertThat(post("openai/gpt-5", false).statusCode()).isEqualTo(200);

        assertThat(upstream.requests()).extracting(RecordedRequest::path)
                .containsExactly("/v1/responses", "/v1/chat/completions", "/v1/chat/completions");
    }

    /** Codex-shaped, with what the canonical model does not know: an item, a tool, an include entry, a top-level field. */
    private static final String FUTURE_BODY = """
            {"model":"%s","stream":false,"store":false,"instructions":"You are Codex.","brand_new_field":{"nested":[1,{"k":null}]},
             "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},
                      {"type":"future_item","x":1},
                      {"type":"additional_tools","tools":[{"type":"function","name":"late"}]}],
             "tools":[{"type":"function","name":"shell","parameters":{"type":"object","properties":{}}},{"type":"future_tool","y":[true]}],
             "include":["reasoning.encrypted_content","future.include"],"prompt_cache_key":"cache-9"}""";

    private HttpResponse<String> postFuture(String model) {
        return sluice.send("POST", "/v1/responses", key, FUTURE_BODY.formatted(model));
    }

    @Test
    void anItemTypeSluiceDoesNotKnowReachesAPassthroughUpstreamEqualAsJsonButForTheModel_issue32() throws Exception {
        openAiConnection("");
        upstream.enqueue(MockResponse.json(200, ANSWER));

        HttpResponse<String> r = postFuture("openai/gpt-5");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(read(r.body())).isEqualTo(read(ANSWER));
        RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(sent.path()).isEqualTo("/v1/responses");
        assertThat(read(sent.body())).isEqualTo(read(FUTURE_BODY.formatted("gpt-5")));
    }

    @Test
    void aConnectionThatWouldTranslateIsPassedOverForAnUntranslatableBody_issue32() throws Exception {
        // the better-priority connection translates (it opted out); the body goes to the one that passes it through
        openAiConnection(",\"providerSpecificData\":{\"responsesApi\":false}");
        MockUpstream second = MockUpstream.start();
        try {
            sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-openai-2\","
                    + "\"baseUrl\":\"" + second.baseUrl() + "/v1\",\"priority\":2}");
            second.enqueue(MockResponse.json(200, ANSWER));

            HttpResponse<String> r = postFuture("openai/gpt-5");

            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(upstream.requestCount()).as("nothing went to the translating connection").isZero();
            assertThat(read(second.takeRequest(Duration.ofSeconds(5)).body())).isEqualTo(read(FUTURE_BODY.formatted("gpt-5")));
        } finally {
            second.close();
        }
    }

    @Test
    void withOnlyTranslatingConnectionsTheAnswerIsThe400NamingTheItem_issue32() {
        sluice.addConnection("{\"provider\":\"plain\",\"authType\":\"apikey\",\"apiKey\":\"sk-p\",\"baseUrl\":\""
                + upstream.baseUrl() + "/v1\"}");
        openAiConnection(",\"providerSpecificData\":{\"responsesApi\":false}");

        for (String model : List.of("plain/gpt-5", "openai/gpt-5")) {
            HttpResponse<String> r = postFuture(model);

            assertThat(r.statusCode()).as(model + ": " + r.body()).isEqualTo(400);
            JsonNode error = read(r.body()).get("error");
            assertThat(error.get("param").asText()).isEqualTo("input[1].type");
            assertThat(error.get("message").asText()).contains("'future_item' is not supported");
        }
        assertThat(upstream.requestCount()).as("no attempt, no failover chain").isZero();
    }

    @Test
    void aComboGoesOnToTheTargetThatPassesThroughAndAnswers400WhenNoneDoes_issue32() throws Exception {
        sluice.addConnection("{\"provider\":\"plain\",\"authType\":\"apikey\",\"apiKey\":\"sk-p\",\"baseUrl\":\""
                + upstream.baseUrl() + "/v1\"}");
        openAiConnection("");
        assertThat(sluice.send("POST", "/api/combos", SluiceHarness.ADMIN_KEY, "{\"name\":\"codex-combo\",\"strategy\":\"priority\","
                + "\"targets\":[{\"model\":\"plain/gpt-5\"},{\"model\":\"openai/gpt-5\"}]}").statusCode()).isEqualTo(201);
        assertThat(sluice.send("POST", "/api/combos", SluiceHarness.ADMIN_KEY, "{\"name\":\"plain-only\",\"strategy\":\"priority\","
                + "\"targets\":[{\"model\":\"plain/gpt-5\"}]}").statusCode()).isEqualTo(201);
        upstream.enqueue(MockResponse.json(200, ANSWER));

        HttpResponse<String> served = postFuture("codex-combo");
        HttpResponse<String> refused = postFuture("plain-only");

        assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        assertThat(read(refused.body()).at("/error/param").asText()).isEqualTo("input[1].type");
        assertThat(upstream.requests()).extracting(RecordedRequest::path).containsExactly("/v1/responses");
    }

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
}
