package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Anthropic-format client (plain HTTP with {@code x-api-key}, the Anthropic SDK's shapes) calling
 * an OpenAI-compatible mock upstream through a real Sluice (SPEC API-3, API-5, API-6).
 */
class AnthropicMessagesIT {

    private static final String ANTHROPIC_VERSION = "2023-06-01";

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String clientKey;
    String connectionId;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"claude-code\"}");
        connectionId = sluice.addOpenAiCompatible("mockai", upstream.baseUrl() + "/v1", 1);
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    /** Sends like the Anthropic SDK: {@code x-api-key}, {@code anthropic-version}, JSON. */
    private HttpResponse<String> messages(String path, String key, String body) {
        Map<String, String> headers = new HashMap<>();
        headers.put("anthropic-version", ANTHROPIC_VERSION);
        if (key != null) {
            headers.put("x-api-key", key);
        }
        return sluice.send("POST", path, null, body, headers);
    }

    private static String request(String model, boolean stream) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":1024,\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}";
    }

    /** The Anthropic error envelope, and its error.type. */
    private static String anthropicError(HttpResponse<String> r) {
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(r.body()).doesNotContain("\tat ");
        JsonNode root = read(r.body());
        assertThat(root.get("type").asText()).isEqualTo("error");
        JsonNode err = root.get("error");
        assertThat(err.fieldNames()).toIterable().containsExactlyInAnyOrder("type", "message");
        return err.get("type").asText();
    }

    private static String message(HttpResponse<String> r) {
        return read(r.body()).at("/error/message").asText();
    }

    // ------------------------------------------------------------------ success

    @Test
    void nonStreamingMessageIsTranslatedBothWaysWithRoutingHeaders_API3_API5() throws Exception {
        upstream.enqueue(MockResponse.completion("Hello there"));

        HttpResponse<String> r = messages("/v1/messages", clientKey, "{\"model\":\"mockai/gpt-x\",\"max_tokens\":300,"
                + "\"system\":[{\"type\":\"text\",\"text\":\"Be brief.\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                + "\"metadata\":{\"user_id\":\"user-7\"},\"stop_sequences\":[\"###\"],\"top_k\":5,"
                + "\"tools\":[{\"name\":\"get_weather\",\"description\":\"Weather\",\"input_schema\":{\"type\":\"object\"}}],"
                + "\"tool_choice\":{\"type\":\"any\"},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Weather?\"},"
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\"}}]},"
                + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"18 C\"}]}]}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body())).isEqualTo(read("{\"id\":\"msg_chatcmpl-mock\",\"type\":\"message\",\"role\":\"assistant\","
                + "\"model\":\"gpt-x\",\"content\":[{\"type\":\"text\",\"text\":\"Hello there\"}],\"stop_reason\":\"end_turn\","
                + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":5}}"));
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(connectionId);
        assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("mockai");
        assertThat(r.headers().firstValue("X-Sluice-Model")).contains("gpt-x");
        assertThat(r.headers().firstValue("X-Request-Id")).hasValueSatisfying(v -> assertThat(v).startsWith("req_"));
        // the header Anthropic's API sends and its SDK reads (err.requestID, _request_id)
        assertThat(r.headers().firstValue("request-id")).isEqualTo(r.headers().firstValue("X-Request-Id"));

        RecordedRequest up = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(up.path()).isEqualTo("/v1/chat/completions");
        assertThat(up.header("authorization")).isEqualTo("Bearer sk-upstream-mockai-1-abcdef");
        // the client's key never travels upstream, and the OpenAI-compatible executor has no use for anthropic-version
        assertThat(up.headers()).doesNotContainKeys("x-api-key", "anthropic-version");
        assertThat(read(up.body())).isEqualTo(read("{\"model\":\"gpt-x\",\"messages\":["
                + "{\"role\":\"system\",\"content\":\"Be brief.\"},"
                + "{\"role\":\"user\",\"content\":\"Weather?\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"toolu_1\",\"type\":\"function\","
                + "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}]},"
                + "{\"role\":\"tool\",\"content\":\"18 C\",\"tool_call_id\":\"toolu_1\"}],"
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"description\":\"Weather\","
                + "\"parameters\":{\"type\":\"object\"}}}],"
                + "\"tool_choice\":\"required\",\"max_tokens\":300,\"stop\":[\"###\"],\"user\":\"user-7\"}"));
    }

    @Test
    void bearerTokenAuthenticatesToo_API3() {
        HttpResponse<String> r = sluice.send("POST", "/v1/messages", clientKey, request("mockai/gpt-x", false));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).get("type").asText()).isEqualTo("message");
    }

    @Test
    void streamIsTranslatedEventByEventBeforeTheUpstreamFinishes_API3() throws Exception {
        upstream.enqueue(MockResponse.chatStream(List.of("Hel", "lo", " world"), Duration.ofMillis(400)));

        HttpRequest req = HttpRequest.newBuilder(URI.create(sluice.base() + "/v1/messages"))
                .header("x-api-key", clientKey).header("anthropic-version", ANTHROPIC_VERSION)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(request("mockai/gpt-x", true))).build();
        HttpResponse<InputStream> r = sluice.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(connectionId);
        assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("mockai");

        List<String> names = new ArrayList<>();
        List<JsonNode> data = new ArrayList<>();
        List<Long> arrivals = new ArrayList<>();
        readEvents(r.body(), names, data, arrivals);

        assertThat(names).containsExactly("message_start", "content_block_start", "content_block_delta", "content_block_delta",
                "content_block_delta", "content_block_stop", "message_delta", "message_stop");
        for (int i = 0; i < names.size(); i++) {
            assertThat(data.get(i).get("type").asText()).isEqualTo(names.get(i));
        }
        assertThat(data.get(0).at("/message/role").asText()).isEqualTo("assistant");
        assertThat(data.get(0).at("/message/model").asText()).isEqualTo("gpt-x");
        StringBuilder text = new StringBuilder();
        for (JsonNode d : data.subList(2, 5)) {
            text.append(d.at("/delta/text").asText());
        }
        assertThat(text).hasToString("Hello world");
        assertThat(data.get(6).at("/delta/stop_reason").asText()).isEqualTo("end_turn");
        assertThat(data.get(6).at("/usage/output_tokens").asInt()).isEqualTo(5);
        // the mock pauses 400 ms between its events: the first translated event must arrive long before the last
        long spreadMs = (arrivals.get(arrivals.size() - 1) - arrivals.get(0)) / 1_000_000;
        assertThat(spreadMs).isGreaterThanOrEqualTo(1000);

        // the OpenAI upstream was asked to stream, with usage on the last chunk
        JsonNode sent = read(upstream.takeRequest(Duration.ofSeconds(5)).body());
        assertThat(sent.get("stream").asBoolean()).isTrue();
        assertThat(sent.at("/stream_options/include_usage").asBoolean()).isTrue();
    }

    @Test
    void streamedToolCallSplitAcrossDeltasBecomesOneToolUseBlock_API3() {
        String head = "{\"id\":\"chatcmpl-t\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-x\",\"choices\":[{\"index\":0,\"delta\":";
        upstream.enqueue(MockResponse.sse(List.of(
                head + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}",
                head + "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\"}}]},\"finish_reason\":null}]}",
                head + "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}]}",
                head + "{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":4,\"total_tokens\":13}}",
                "[DONE]"), Duration.ofMillis(5)));

        HttpResponse<String> r = messages("/v1/messages", clientKey, request("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        List<JsonNode> data = new ArrayList<>();
        readEvents(new java.io.ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)), names, data, new ArrayList<>());
        assertThat(names).containsExactly("message_start", "content_block_start", "content_block_delta", "content_block_delta",
                "content_block_stop", "message_delta", "message_stop");
        assertThat(data.get(1).get("content_block")).isEqualTo(read(
                "{\"type\":\"tool_use\",\"id\":\"call_9\",\"name\":\"get_weather\",\"input\":{}}"));
        String json = data.get(2).at("/delta/partial_json").asText() + data.get(3).at("/delta/partial_json").asText();
        assertThat(read(json)).isEqualTo(read("{\"city\":\"Paris\"}"));
        assertThat(data.get(5).at("/delta/stop_reason").asText()).isEqualTo("tool_use");
        assertThat(data.get(5).get("usage")).isEqualTo(read("{\"input_tokens\":9,\"output_tokens\":4}"));
    }

    @Test
    void midStreamUpstreamFailureEndsWithAnErrorEvent_API3() {
        upstream.enqueue(MockResponse.resetAfterHeaders());

        HttpResponse<String> r = messages("/v1/messages", clientKey, request("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        List<JsonNode> data = new ArrayList<>();
        readEvents(new java.io.ByteArrayInputStream(r.body().getBytes(StandardCharsets.UTF_8)), names, data, new ArrayList<>());
        assertThat(names).containsExactly("message_start", "content_block_start", "content_block_delta", "error");
        assertThat(data.get(2).at("/delta/text").asText()).isEqualTo("partial");
        assertThat(data.get(3).at("/error/type").asText()).isEqualTo("api_error");
        assertThat(data.get(3).at("/error/message").asText()).contains("mockai/gpt-x").contains("upstream stream failed");
    }

    @Test
    void countTokensAnswersAnEstimateWithoutCallingTheUpstream_API3() {
        // "Hello" = 5 UTF-8 bytes -> ceil(5 / 4) = 2
        HttpResponse<String> r = messages("/v1/messages/count_tokens", clientKey,
                "{\"model\":\"mockai/gpt-x\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}]}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body())).isEqualTo(read("{\"input_tokens\":2}"));
        assertThat(upstream.requestCount()).isZero();
    }

    // ------------------------------------------------------------------ errors

    @Test
    void malformedRequestsAre400InTheAnthropicEnvelopeNamingTheField_API3_API6() {
        Map<String, String> cases = Map.of(
                "{\"model\":\"mockai/gpt-x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", "max_tokens",
                "{\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", "model",
                "{\"model\":\"mockai/gpt-x\",\"max_tokens\":5,\"messages\":[]}", "messages",
                "{\"model\":\"mockai/gpt-x\",\"max_tokens\":5,\"messages\":[{\"role\":\"tool\",\"content\":\"x\"}]}", "messages[0].role",
                "{\"model\":\"mockai/gpt-x\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\"}}]}]}",
                "messages[0].content[0].source.media_type",
                "{\"model\":\"mockai/gpt-x\",\"max_tokens\":5,\"tool_choice\":{\"type\":\"sometimes\"},\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
                "tool_choice.type",
                "{\"model\":", "not valid JSON");
        cases.forEach((body, field) -> {
            HttpResponse<String> r = messages("/v1/messages", clientKey, body);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(anthropicError(r)).isEqualTo("invalid_request_error");
            assertThat(message(r)).as(body).contains(field);
        });
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void unknownModelIs404NotFoundError_API3_API6() {
        for (String model : new String[] {"nosuch/model", "claude-sonnet-4-5-20250929", "glm/glm-4.6"}) {
            HttpResponse<String> r = messages("/v1/messages", clientKey, request(model, false));
            assertThat(r.statusCode()).as(model).isEqualTo(404);
            assertThat(anthropicError(r)).isEqualTo("not_found_error");
            assertThat(message(r)).contains(model);
        }
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void missingOrWrongKeyIs401AuthenticationError_API3_API6() {
        HttpResponse<String> none = messages("/v1/messages", null, request("mockai/gpt-x", false));
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(anthropicError(none)).isEqualTo("authentication_error");
        assertThat(message(none)).contains("x-api-key");

        HttpResponse<String> wrong = messages("/v1/messages", clientKey + "x", request("mockai/gpt-x", false));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(anthropicError(wrong)).isEqualTo("authentication_error");

        HttpResponse<String> count = messages("/v1/messages/count_tokens", null, request("mockai/gpt-x", false));
        assertThat(count.statusCode()).isEqualTo(401);
        assertThat(anthropicError(count)).isEqualTo("authentication_error");
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void upstreamRateLimitIs429RateLimitErrorKeepingRetryAfter_API3_API6() {
        upstream.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "12"));

        HttpResponse<String> r = messages("/v1/messages", clientKey, request("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(anthropicError(r)).isEqualTo("rate_limit_error");
        assertThat(message(r)).contains("mockai").contains("slow down");
        assertThat(r.headers().firstValue("Retry-After")).contains("12");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(connectionId);
    }

    @Test
    void upstreamOverloadIs503OverloadedError_API3_API6() {
        upstream.enqueue(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}").header("Retry-After", "3"));

        HttpResponse<String> r = messages("/v1/messages", clientKey, request("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(anthropicError(r)).isEqualTo("overloaded_error");
        assertThat(r.headers().firstValue("Retry-After")).contains("3");
    }

    @Test
    void upstreamTransportFailureIs502ApiError_API3_API6() {
        upstream.enqueue(MockResponse.reset());

        HttpResponse<String> r = messages("/v1/messages", clientKey, request("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(anthropicError(r)).isEqualTo("api_error");
    }

    @Test
    void bodyOverTheLimitIs413RequestTooLarge_API3_API6() {
        try (SluiceHarness small = new SluiceHarness(dir.resolve("small"), 4096)) {
            String key = small.addKey("{\"name\":\"k\"}");
            String big = "{\"model\":\"mockai/gpt-x\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\""
                    + "x".repeat(8192) + "\"}]}";
            HttpResponse<String> r = small.send("POST", "/v1/messages", null, big, Map.of("x-api-key", key));
            assertThat(r.statusCode()).isEqualTo(413);
            assertThat(anthropicError(r)).isEqualTo("request_too_large");
        }
    }

    @Test
    void unknownRouteBelowMessagesUsesTheAnthropicEnvelopeAndOpenAiRoutesKeepTheirs() {
        HttpResponse<String> r = messages("/v1/messages/batches", clientKey, "{}");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(anthropicError(r)).isEqualTo("not_found_error");

        HttpResponse<String> get = sluice.send("GET", "/v1/messages", null, null, Map.of("x-api-key", clientKey));
        assertThat(get.statusCode()).isEqualTo(405);
        assertThat(get.headers().firstValue("Allow")).contains("POST");
        assertThat(anthropicError(get)).isEqualTo("invalid_request_error");

        HttpResponse<String> openAi = sluice.send("POST", "/v1/chat/completions", null, "{}");
        assertThat(openAi.statusCode()).isEqualTo(401);
        assertThat(read(openAi.body()).at("/error/code").asText()).isEqualTo("missing_api_key");
        assertThat(read(openAi.body()).has("type")).isFalse();
    }

    // ------------------------------------------------------------------ helpers

    /** Reads SSE events ({@code event:} + {@code data:} lines), noting when each one's data arrived. */
    private static void readEvents(InputStream body, List<String> names, List<JsonNode> data, List<Long> arrivals) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String line;
            String name = null;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    assertThat(name).as("data without event: line").isNotNull();
                    names.add(name);
                    data.add(read(line.substring(6)));
                    arrivals.add(System.nanoTime());
                    name = null;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void jsonPastTheParserLimitsIs400InTheAnthropicEnvelope_API3() throws Exception {
        String nested = "[".repeat(1100) + "]".repeat(1100);
        java.net.http.HttpResponse<String> r = sluice.send("POST", "/v1/messages", null,
                "{\"model\":\"x/y\",\"max_tokens\":5,\"messages\":[],\"x\":" + nested + "}", java.util.Map.of("x-api-key", clientKey));
        org.assertj.core.api.Assertions.assertThat(r.statusCode()).isEqualTo(400);
        org.assertj.core.api.Assertions.assertThat(r.body()).startsWith("{\"type\":\"error\"");
    }
}
