package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped {@code claude} and {@code gemini} plugins through the real, unpacked distribution
 * (issue 3, SPEC SH-1, SH-2, API-3, FC-3, ST-1): OpenAI-format and Anthropic-format clients against
 * a mock upstream on 127.0.0.1 that speaks the Anthropic Messages and Gemini wire formats (status
 * codes, error bodies, SSE event sequences).
 *
 * <p>The zip is unpacked once for the class; every test starts its own {@code bin/sluice} (free
 * port, own data folder) and its own mock upstream, and both are stopped after it.
 */
class NativeProvidersIT {

    private static final String CLAUDE_KEY = "sk-ant-test-0123456789";
    private static final String GEMINI_KEY = "gm-test-0123456789";
    private static final String CLAUDE_MODEL = "claude-sonnet-4-5";
    private static final String GEMINI_MODEL = "gemini-2.5-flash";
    /** The pause between two upstream stream events in the incremental-delivery tests. */
    private static final Duration EVENT_GAP = Duration.ofMillis(300);
    private static final Duration TAKE = Duration.ofSeconds(5);

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream upstream;
    private SluiceProcess sluice;
    private SluiceClient client;
    private String clientKey;
    private String claudeConnection;
    private String geminiConnection;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() {
        upstream = MockUpstream.start();
        sluice = servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey));
        client = new SluiceClient(sluice);
        // both connections point at the same mock: the model prefix decides which plugin talks to it
        claudeConnection = client.createConnection(adminKey, "claude", CLAUDE_KEY, upstream.baseUrl());
        geminiConnection = client.createConnection(adminKey, "gemini", GEMINI_KEY, upstream.baseUrl());
        clientKey = client.createKey(adminKey, "native-providers");
    }

    @AfterEach
    void stopUpstream() {
        upstream.close();
    }

    // ================================================================ OpenAI client -> Claude

    @Test
    void theResponsesApiIsServedByClaudeAndGeminiConnections_API7() throws Exception {
        upstream.enqueue(MockResponse.json(200, json("""
                {'id':'msg_1','type':'message','role':'assistant','model':'claude-sonnet-4-5',
                 'content':[{'type':'text','text':'Hi from Claude'}],'stop_reason':'end_turn','stop_sequence':null,
                 'usage':{'input_tokens':5,'output_tokens':4}}""")));
        JsonNode claude = client.expect(client.post("/v1/responses", clientKey, Map.of("model", "claude/" + CLAUDE_MODEL,
                "instructions", "Be brief.", "input", "hello")), 200);
        assertThat(claude.path("object").asText()).isEqualTo("response");
        assertThat(claude.at("/output/0/content/0/text").asText()).isEqualTo("Hi from Claude");
        assertThat(claude.at("/usage/input_tokens").asLong()).isEqualTo(5);
        RecordedRequest toClaude = take();
        assertThat(toClaude.path()).isEqualTo("/v1/messages");
        assertThat(SluiceClient.JSON.readTree(toClaude.body()).path("system").asText()).isEqualTo("Be brief.");

        upstream.enqueue(MockResponse.json(200, json("""
                {'candidates':[{'content':{'parts':[{'text':'Hi from Gemini'}],'role':'model'},'finishReason':'STOP','index':0}],
                 'usageMetadata':{'promptTokenCount':3,'candidatesTokenCount':2,'totalTokenCount':5},'modelVersion':'gemini-2.5-flash'}""")));
        JsonNode gemini = client.expect(client.post("/v1/responses", clientKey, Map.of("model", "gemini/" + GEMINI_MODEL,
                "input", "hello")), 200);
        assertThat(gemini.at("/output/0/content/0/text").asText()).isEqualTo("Hi from Gemini");
        assertThat(take().path()).contains(":generateContent");
    }

    @Test
    void openAiClientGetsAChatCompletionFromClaude_SH2() throws Exception {
        upstream.enqueue(MockResponse.json(200, json("""
                {'id':'msg_01XFDUDYJgAACzvnptvVoYEL','type':'message','role':'assistant','model':'claude-sonnet-4-5-20250929',
                 'content':[{'type':'text','text':'Bonjour! How can I help?'}],
                 'stop_reason':'end_turn','stop_sequence':null,
                 'usage':{'input_tokens':21,'cache_creation_input_tokens':0,'cache_read_input_tokens':0,'output_tokens':9}}""")));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("messages", List.of(
                Map.of("role", "system", "content", "You answer in French first."),
                Map.of("role", "user", "content", "Hello")));
        body.put("max_tokens", 300);
        body.put("temperature", 0.2);
        HttpResponse<String> response = client.post("/v1/chat/completions", clientKey, body);

        JsonNode answer = client.expect(response, 200);
        assertThat(answer.path("object").asText()).isEqualTo("chat.completion");
        assertThat(answer.path("id").asText()).isEqualTo("msg_01XFDUDYJgAACzvnptvVoYEL");
        assertThat(answer.path("model").asText()).isEqualTo("claude-sonnet-4-5-20250929");
        assertThat(answer.path("choices")).hasSize(1);
        assertThat(answer.at("/choices/0/message/role").asText()).isEqualTo("assistant");
        assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("Bonjour! How can I help?");
        assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        assertThat(answer.at("/usage/prompt_tokens").asLong()).isEqualTo(21);
        assertThat(answer.at("/usage/completion_tokens").asLong()).isEqualTo(9);
        assertThat(answer.at("/usage/total_tokens").asLong()).isEqualTo(30);
        assertRoutedTo(response, "claude", claudeConnection, CLAUDE_MODEL);

        RecordedRequest sent = take();
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.path()).isEqualTo("/v1/messages");
        assertThat(sent.header("x-api-key")).isEqualTo(CLAUDE_KEY);
        assertThat(sent.header("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(sent.header("accept")).isEqualTo("application/json");
        assertThat(sent.header("content-type")).startsWith("application/json");
        assertNoClientCredentialUpstream(sent);
        JsonNode upstreamBody = SluiceClient.JSON.readTree(sent.body());
        assertThat(fieldNames(upstreamBody)).containsExactly("model", "max_tokens", "system", "messages", "temperature");
        assertThat(upstreamBody.path("model").asText()).isEqualTo(CLAUDE_MODEL);
        assertThat(upstreamBody.path("max_tokens").asInt()).isEqualTo(300);
        assertThat(upstreamBody.path("system").asText()).isEqualTo("You answer in French first.");
        assertThat(upstreamBody.path("temperature").asDouble()).isEqualTo(0.2);
        JsonNode messages = upstreamBody.path("messages");
        assertThat(messages).hasSize(1);
        assertThat(messages.at("/0/role").asText()).isEqualTo("user");
        assertThat(text(messages.get(0).path("content"))).isEqualTo("Hello");
        assertThat(upstream.requestCount()).isEqualTo(1);
    }

    @Test
    void openAiClientStreamFromClaudeArrivesChunkByChunk_SH2_ST1() throws Exception {
        upstream.enqueue(MockResponse.sse(anthropicEvents(
                "{'type':'message_start','message':{'id':'msg_01StreamAbc','type':'message','role':'assistant','content':[],"
                        + "'model':'claude-sonnet-4-5-20250929','stop_reason':null,'stop_sequence':null,"
                        + "'usage':{'input_tokens':25,'cache_creation_input_tokens':0,'cache_read_input_tokens':0,'output_tokens':1}}}",
                "{'type':'content_block_start','index':0,'content_block':{'type':'text','text':''}}",
                "{'type':'ping'}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':'Once'}}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':' upon'}}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':' a time.'}}",
                "{'type':'content_block_stop','index':0}",
                "{'type':'message_delta','delta':{'stop_reason':'end_turn','stop_sequence':null},'usage':{'output_tokens':15}}",
                "{'type':'message_stop'}"), EVENT_GAP));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("messages", List.of(Map.of("role", "user", "content", "Tell me a story")));
        body.put("stream", true);
        long sentAt = System.nanoTime();
        Sse stream = postStream("/v1/chat/completions", Map.of("Authorization", "Bearer " + clientKey), body);

        assertThat(stream.status).as(stream::toString).isEqualTo(200);
        assertThat(stream.header("Content-Type")).startsWith("text/event-stream");
        assertThat(stream.header("X-Sluice-Provider")).isEqualTo("claude");
        assertThat(stream.header("X-Sluice-Connection-Id")).isEqualTo(claudeConnection);
        assertThat(stream.events).as(stream::toString).isNotEmpty();
        assertThat(stream.events.getLast().data).as(stream::toString).isEqualTo("[DONE]");
        assertThat(stream.events).as("no event: lines towards an OpenAI client").allMatch(e -> e.name == null);

        List<SseEvent> chunks = stream.events.subList(0, stream.events.size() - 1);
        StringBuilder text = new StringBuilder();
        List<Long> contentArrivals = new ArrayList<>();
        List<String> finishReasons = new ArrayList<>();
        JsonNode usage = null;
        for (SseEvent e : chunks) {
            JsonNode chunk = SluiceClient.JSON.readTree(e.data);
            assertThat(chunk.path("object").asText()).as(e.data).isEqualTo("chat.completion.chunk");
            assertThat(chunk.path("id").asText()).as(e.data).isEqualTo("msg_01StreamAbc");
            assertThat(chunk.path("model").asText()).as(e.data).isEqualTo("claude-sonnet-4-5-20250929");
            JsonNode content = chunk.at("/choices/0/delta/content");
            if (content.isTextual() && !content.asText().isEmpty()) {
                text.append(content.asText());
                contentArrivals.add(e.arrivalNanos);
            }
            JsonNode finish = chunk.at("/choices/0/finish_reason");
            if (finish.isTextual()) {
                finishReasons.add(finish.asText());
            }
            if (chunk.hasNonNull("usage")) {
                usage = chunk.get("usage");
            }
        }
        assertThat(SluiceClient.JSON.readTree(chunks.getFirst().data).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        assertThat(text).hasToString("Once upon a time.");
        assertThat(contentArrivals).hasSize(3);
        assertThat(finishReasons).containsExactly("stop");
        assertThat(usage).as(stream::toString).isNotNull();
        assertThat(usage.path("prompt_tokens").asLong()).isEqualTo(25);
        assertThat(usage.path("completion_tokens").asLong()).isEqualTo(15);
        assertThat(usage.path("total_tokens").asLong()).isEqualTo(40);

        // the mock needs 8 × 300 ms for its 9 events: the first text must reach the client long
        // before the last event was even sent (incremental translation, nothing buffered)
        long firstTextMs = (contentArrivals.getFirst() - sentAt) / 1_000_000;
        long lastTextMs = (contentArrivals.getLast() - sentAt) / 1_000_000;
        long doneMs = (stream.events.getLast().arrivalNanos - sentAt) / 1_000_000;
        assertThat(doneMs - firstTextMs).as("first text at %d ms, [DONE] at %d ms", firstTextMs, doneMs).isGreaterThanOrEqualTo(1200);
        assertThat(lastTextMs - firstTextMs).as("text pieces 300 ms apart upstream").isGreaterThanOrEqualTo(450);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1/messages");
        assertThat(sent.header("x-api-key")).isEqualTo(CLAUDE_KEY);
        assertThat(sent.header("accept")).isEqualTo("text/event-stream");
        assertNoClientCredentialUpstream(sent);
        JsonNode upstreamBody = SluiceClient.JSON.readTree(sent.body());
        assertThat(fieldNames(upstreamBody)).containsExactly("model", "max_tokens", "messages", "stream");
        assertThat(upstreamBody.path("stream").asBoolean()).isTrue();
        assertThat(upstreamBody.path("max_tokens").asInt()).as("the documented default when the client names none").isEqualTo(4096);
        assertThat(upstreamBody.path("model").asText()).isEqualTo(CLAUDE_MODEL);
    }

    @Test
    void openAiClientGetsClaudeToolCallArgumentsSplitAcrossDeltas_SH2() throws Exception {
        upstream.enqueue(MockResponse.sse(anthropicEvents(
                "{'type':'message_start','message':{'id':'msg_01ToolXyz','type':'message','role':'assistant','content':[],"
                        + "'model':'claude-sonnet-4-5-20250929','stop_reason':null,'stop_sequence':null,"
                        + "'usage':{'input_tokens':412,'output_tokens':2}}}",
                "{'type':'content_block_start','index':0,'content_block':{'type':'text','text':''}}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':'Let me check the weather.'}}",
                "{'type':'content_block_stop','index':0}",
                "{'type':'content_block_start','index':1,'content_block':{'type':'tool_use','id':'toolu_01T1x1fJ34qAmk2tNTrN7Up6',"
                        + "'name':'get_weather','input':{}}}",
                "{'type':'content_block_delta','index':1,'delta':{'type':'input_json_delta','partial_json':''}}",
                "{'type':'content_block_delta','index':1,'delta':{'type':'input_json_delta','partial_json':'{\\\\'location\\\\': \\\\'San Fra'}}",
                "{'type':'content_block_delta','index':1,'delta':{'type':'input_json_delta','partial_json':'ncisco, CA\\\\', \\\\'unit'}}",
                "{'type':'content_block_delta','index':1,'delta':{'type':'input_json_delta','partial_json':'\\\\': \\\\'celsius\\\\'}'}}",
                "{'type':'content_block_stop','index':1}",
                "{'type':'message_delta','delta':{'stop_reason':'tool_use','stop_sequence':null},'usage':{'output_tokens':89}}",
                "{'type':'message_stop'}"), Duration.ofMillis(20)));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("messages", List.of(Map.of("role", "user", "content", "Weather in San Francisco?")));
        body.put("tools", List.of(Map.of("type", "function", "function", Map.of(
                "name", "get_weather",
                "description", "Current weather for a location",
                "parameters", Map.of("type", "object",
                        "properties", Map.of("location", Map.of("type", "string"), "unit", Map.of("type", "string")),
                        "required", List.of("location"))))));
        body.put("tool_choice", "auto");
        body.put("stream", true);
        Sse stream = postStream("/v1/chat/completions", Map.of("Authorization", "Bearer " + clientKey), body);

        assertThat(stream.status).as(stream::toString).isEqualTo(200);
        assertThat(stream.events.getLast().data).as(stream::toString).isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        StringBuilder arguments = new StringBuilder();
        List<JsonNode> toolDeltas = new ArrayList<>();
        List<String> finishReasons = new ArrayList<>();
        for (SseEvent e : stream.events.subList(0, stream.events.size() - 1)) {
            JsonNode delta = SluiceClient.JSON.readTree(e.data).at("/choices/0/delta");
            if (delta.path("content").isTextual()) {
                text.append(delta.path("content").asText());
            }
            for (JsonNode call : delta.path("tool_calls")) {
                toolDeltas.add(call);
                assertThat(call.path("index").asInt()).as(e.data).isZero();
                arguments.append(call.at("/function/arguments").asText(""));
            }
            JsonNode finish = SluiceClient.JSON.readTree(e.data).at("/choices/0/finish_reason");
            if (finish.isTextual()) {
                finishReasons.add(finish.asText());
            }
        }
        assertThat(text).hasToString("Let me check the weather.");
        assertThat(toolDeltas).as(stream::toString).hasSize(4); // the start, then the three non-empty pieces
        JsonNode first = toolDeltas.getFirst();
        assertThat(first.path("id").asText()).isEqualTo("toolu_01T1x1fJ34qAmk2tNTrN7Up6");
        assertThat(first.path("type").asText()).isEqualTo("function");
        assertThat(first.at("/function/name").asText()).isEqualTo("get_weather");
        assertThat(toolDeltas.subList(1, 4)).allSatisfy(d -> assertThat(d.has("id")).as(d.toString()).isFalse());
        assertThat(toolDeltas.subList(1, 4)).extracting(d -> d.at("/function/arguments").asText())
                .containsExactly("{\"location\": \"San Fra", "ncisco, CA\", \"unit", "\": \"celsius\"}");
        assertThat(arguments).hasToString("{\"location\": \"San Francisco, CA\", \"unit\": \"celsius\"}");
        assertThat(SluiceClient.JSON.readTree(arguments.toString()))
                .isEqualTo(SluiceClient.JSON.readTree("{\"location\":\"San Francisco, CA\",\"unit\":\"celsius\"}"));
        assertThat(finishReasons).containsExactly("tool_calls");

        JsonNode upstreamBody = SluiceClient.JSON.readTree(take().body());
        assertThat(upstreamBody.at("/tools/0/name").asText()).isEqualTo("get_weather");
        assertThat(upstreamBody.at("/tools/0/description").asText()).isEqualTo("Current weather for a location");
        assertThat(upstreamBody.at("/tools/0/input_schema/type").asText()).isEqualTo("object");
        assertThat(upstreamBody.at("/tools/0/input_schema/required/0").asText()).isEqualTo("location");
        assertThat(upstreamBody.at("/tools/0").has("function")).as("Anthropic tool shape, not OpenAI's").isFalse();
        assertThat(upstreamBody.path("tool_choice")).isEqualTo(SluiceClient.JSON.readTree("{\"type\":\"auto\"}"));
    }

    @Test
    void claudeRateLimitReachesTheClientAs429WithRetryAfter_FC3() throws Exception {
        upstream.enqueue(MockResponse.status(429, json("""
                {'type':'error','error':{'type':'rate_limit_error',
                 'message':'Number of request tokens has exceeded your per-minute rate limit'}}"""))
                .header("retry-after", "7")
                .header("anthropic-ratelimit-requests-limit", "50")
                .header("anthropic-ratelimit-requests-remaining", "0")
                .header("anthropic-ratelimit-requests-reset", "2030-01-01T00:00:07Z")
                .header("request-id", "req_011CSHoEeqs5C35K2UUqR7Fy"));

        HttpResponse<String> response = client.post("/v1/chat/completions", clientKey,
                SluiceClient.chat("claude/" + CLAUDE_MODEL, false));

        JsonNode error = client.expect(response, 429);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("7");
        assertThat(error.at("/error/type").asText()).isEqualTo("rate_limit_error");
        assertThat(error.at("/error/code").asText()).isEqualTo("rate_limit_error");
        assertThat(error.at("/error/message").asText())
                .isEqualTo("[claude/" + CLAUDE_MODEL + "] HTTP 429: Number of request tokens has exceeded your per-minute rate limit");
        assertRoutedTo(response, "claude", claudeConnection, CLAUDE_MODEL);
        assertThat(response.body()).doesNotContain(CLAUDE_KEY);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1/messages");
        assertThat(upstream.requestCount()).as("one connection, one attempt").isEqualTo(1);

        // the key now cools for the announced 7 s (CC-2): nothing goes upstream meanwhile
        JsonNode cooling = client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("claude/" + CLAUDE_MODEL, false)), 503);
        assertThat(cooling.at("/error/code").asText()).isEqualTo("all_targets_cooling_down");
        assertThat(upstream.requestCount()).isEqualTo(1);
        client.expect(client.post("/api/resilience/cooldowns", adminKey, Map.of("all", true)), 200);

        // the same failure for an Anthropic-format client: Anthropic's envelope, Retry-After kept
        upstream.enqueue(MockResponse.status(429, json("""
                {'type':'error','error':{'type':'rate_limit_error','message':'Slow down'}}"""))
                .header("retry-after", "7")
                .header("anthropic-ratelimit-requests-remaining", "0"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("max_tokens", 64);
        body.put("messages", List.of(Map.of("role", "user", "content", "Hello")));
        HttpResponse<String> anthropic = post("/v1/messages", anthropicHeaders(), body);
        JsonNode envelope = client.expect(anthropic, 429);
        assertThat(anthropic.headers().firstValue("Retry-After")).hasValue("7");
        assertThat(fieldNames(envelope)).containsExactly("type", "error");
        assertThat(envelope.path("type").asText()).isEqualTo("error");
        assertThat(envelope.at("/error/type").asText()).isEqualTo("rate_limit_error");
        assertThat(envelope.at("/error/message").asText()).isEqualTo("[claude/" + CLAUDE_MODEL + "] HTTP 429: Slow down");
        assertRoutedTo(anthropic, "claude", claudeConnection, CLAUDE_MODEL);
        assertThat(take().path()).isEqualTo("/v1/messages");
    }

    @Test
    void claudeOverloadedRightAfterMessageStartFailsOverBeforeAnyByteReachesTheClient_ST1() throws Exception {
        try (MockUpstream second = MockUpstream.start()) {
            JsonNode created = client.expect(client.post("/api/providers", adminKey, Map.of("provider", "claude",
                    "authType", "apikey", "apiKey", CLAUDE_KEY, "baseUrl", second.baseUrl(), "priority", 2)), 201);
            String secondConnection = created.path("id").asText();
            // Anthropic's usual overload: the stream starts, then an error event instead of content
            upstream.enqueue(MockResponse.sse(anthropicEvents(
                    "{'type':'message_start','message':{'id':'msg_01Overloaded','type':'message','role':'assistant','content':[],"
                            + "'model':'claude-sonnet-4-5-20250929','stop_reason':null,'stop_sequence':null,"
                            + "'usage':{'input_tokens':8,'output_tokens':1}}}",
                    "{'type':'error','error':{'type':'overloaded_error','message':'Overloaded'}}"), Duration.ofMillis(50)));
            second.enqueue(MockResponse.sse(anthropicEvents(
                    "{'type':'message_start','message':{'id':'msg_01Second','type':'message','role':'assistant','content':[],"
                            + "'model':'claude-sonnet-4-5-20250929','stop_reason':null,'stop_sequence':null,"
                            + "'usage':{'input_tokens':8,'output_tokens':1}}}",
                    "{'type':'content_block_start','index':0,'content_block':{'type':'text','text':''}}",
                    "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':'Served by'}}",
                    "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':' the second.'}}",
                    "{'type':'content_block_stop','index':0}",
                    "{'type':'message_delta','delta':{'stop_reason':'end_turn','stop_sequence':null},'usage':{'output_tokens':4}}",
                    "{'type':'message_stop'}"), Duration.ofMillis(20)));

            Sse stream = postStream("/v1/chat/completions", Map.of("Authorization", "Bearer " + clientKey),
                    SluiceClient.chat("claude/" + CLAUDE_MODEL, true));

            assertThat(stream.status).as(stream::toString).isEqualTo(200);
            assertThat(stream.header("X-Sluice-Connection-Id")).as(stream::toString).isEqualTo(secondConnection);
            assertThat(stream.events.getLast().data).as(stream::toString).isEqualTo("[DONE]");
            assertThat(stream.raw).as("nothing of the failed attempt reaches the client").doesNotContain("msg_01Overloaded")
                    .doesNotContain("overloaded_error").doesNotContain("\"error\"");
            StringBuilder text = new StringBuilder();
            for (SseEvent e : stream.events.subList(0, stream.events.size() - 1)) {
                JsonNode chunk = SluiceClient.JSON.readTree(e.data);
                assertThat(chunk.path("id").asText()).as(e.data).isEqualTo("msg_01Second");
                text.append(chunk.at("/choices/0/delta/content").asText(""));
            }
            assertThat(SluiceClient.JSON.readTree(stream.events.getFirst().data).at("/choices/0/delta/role").asText())
                    .as("the held-back role travels with the first content").isEqualTo("assistant");
            assertThat(text).hasToString("Served by the second.");
            assertThat(take().path()).isEqualTo("/v1/messages");
            RecordedRequest retried = second.takeRequest(TAKE);
            assertThat(retried).as("the second connection was tried").isNotNull();
            assertThat(retried.path()).isEqualTo("/v1/messages");
            assertThat(upstream.requestCount() + second.requestCount()).isEqualTo(2);
        }
    }

    // ================================================================ OpenAI client -> Gemini

    @Test
    void openAiClientGetsAChatCompletionFromGemini_SH2() throws Exception {
        upstream.enqueue(MockResponse.json(200, json("""
                {'candidates':[{'content':{'parts':[{'text':'Paris is the capital of France.'}],'role':'model'},
                                'finishReason':'STOP','index':0}],
                 'usageMetadata':{'promptTokenCount':12,'candidatesTokenCount':7,'totalTokenCount':19,
                                  'promptTokensDetails':[{'modality':'TEXT','tokenCount':12}]},
                 'modelVersion':'gemini-2.5-flash','responseId':'Wz1iaM3bKYqbkdUP3u2o0Ag'}""")));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "gemini/" + GEMINI_MODEL);
        body.put("messages", List.of(
                Map.of("role", "system", "content", "Be brief."),
                Map.of("role", "user", "content", "Capital of France?")));
        body.put("max_tokens", 128);
        HttpResponse<String> response = client.post("/v1/chat/completions", clientKey, body);

        JsonNode answer = client.expect(response, 200);
        assertThat(answer.path("object").asText()).isEqualTo("chat.completion");
        assertThat(answer.path("model").asText()).isEqualTo(GEMINI_MODEL);
        assertThat(answer.path("choices")).hasSize(1);
        assertThat(answer.at("/choices/0/message/role").asText()).isEqualTo("assistant");
        assertThat(answer.at("/choices/0/message/content").asText()).isEqualTo("Paris is the capital of France.");
        assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
        assertThat(answer.at("/usage/prompt_tokens").asLong()).isEqualTo(12);
        assertThat(answer.at("/usage/completion_tokens").asLong()).isEqualTo(7);
        assertThat(answer.at("/usage/total_tokens").asLong()).isEqualTo(19);
        assertRoutedTo(response, "gemini", geminiConnection, GEMINI_MODEL);

        RecordedRequest sent = take();
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.path()).isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
        assertThat(sent.path()).doesNotContain("key=").doesNotContain(GEMINI_KEY);
        assertThat(sent.header("x-goog-api-key")).isEqualTo(GEMINI_KEY);
        assertNoClientCredentialUpstream(sent);
        JsonNode upstreamBody = SluiceClient.JSON.readTree(sent.body());
        assertThat(upstreamBody.has("model")).as("the model is in the path").isFalse();
        assertThat(upstreamBody.at("/systemInstruction/parts/0/text").asText()).isEqualTo("Be brief.");
        assertThat(upstreamBody.path("contents")).hasSize(1);
        assertThat(upstreamBody.at("/contents/0/role").asText()).isEqualTo("user");
        assertThat(upstreamBody.at("/contents/0/parts/0/text").asText()).isEqualTo("Capital of France?");
        assertThat(upstreamBody.at("/generationConfig/maxOutputTokens").asInt()).isEqualTo(128);
    }

    @Test
    void openAiClientStreamFromGeminiArrivesChunkByChunk_SH2_ST1() throws Exception {
        upstream.enqueue(MockResponse.sse(List.of(
                json("{'candidates':[{'content':{'parts':[{'text':'Roses are red,'}],'role':'model'},'index':0}],"
                        + "'usageMetadata':{'promptTokenCount':6,'totalTokenCount':6},"
                        + "'modelVersion':'gemini-2.5-flash','responseId':'gm-stream-1'}"),
                json("{'candidates':[{'content':{'parts':[{'text':' violets are blue,'}],'role':'model'},'index':0}],"
                        + "'usageMetadata':{'promptTokenCount':6,'totalTokenCount':6},"
                        + "'modelVersion':'gemini-2.5-flash','responseId':'gm-stream-1'}"),
                json("{'candidates':[{'content':{'parts':[{'text':' Sluice streams'}],'role':'model'},'index':0}],"
                        + "'usageMetadata':{'promptTokenCount':6,'totalTokenCount':6},"
                        + "'modelVersion':'gemini-2.5-flash','responseId':'gm-stream-1'}"),
                json("{'candidates':[{'content':{'parts':[{'text':' to you.'}],'role':'model'},'finishReason':'STOP','index':0}],"
                        + "'usageMetadata':{'promptTokenCount':6,'candidatesTokenCount':14,'totalTokenCount':20},"
                        + "'modelVersion':'gemini-2.5-flash','responseId':'gm-stream-1'}")), EVENT_GAP));

        long sentAt = System.nanoTime();
        Sse stream = postStream("/v1/chat/completions", Map.of("Authorization", "Bearer " + clientKey),
                SluiceClient.chat("gemini/" + GEMINI_MODEL, true));

        assertThat(stream.status).as(stream::toString).isEqualTo(200);
        assertThat(stream.header("Content-Type")).startsWith("text/event-stream");
        assertThat(stream.header("X-Sluice-Provider")).isEqualTo("gemini");
        assertThat(stream.events.getLast().data).as(stream::toString).isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        List<Long> contentArrivals = new ArrayList<>();
        List<String> finishReasons = new ArrayList<>();
        JsonNode usage = null;
        for (SseEvent e : stream.events.subList(0, stream.events.size() - 1)) {
            JsonNode chunk = SluiceClient.JSON.readTree(e.data);
            assertThat(chunk.path("object").asText()).as(e.data).isEqualTo("chat.completion.chunk");
            assertThat(chunk.path("id").asText()).as(e.data).isEqualTo("gm-stream-1");
            JsonNode content = chunk.at("/choices/0/delta/content");
            if (content.isTextual() && !content.asText().isEmpty()) {
                text.append(content.asText());
                contentArrivals.add(e.arrivalNanos);
            }
            JsonNode finish = chunk.at("/choices/0/finish_reason");
            if (finish.isTextual()) {
                finishReasons.add(finish.asText());
            }
            if (chunk.hasNonNull("usage")) {
                usage = chunk.get("usage");
            }
        }
        assertThat(SluiceClient.JSON.readTree(stream.events.getFirst().data).at("/choices/0/delta/role").asText()).isEqualTo("assistant");
        assertThat(text).hasToString("Roses are red, violets are blue, Sluice streams to you.");
        assertThat(contentArrivals).hasSize(4);
        assertThat(finishReasons).containsExactly("stop");
        assertThat(usage).as(stream::toString).isNotNull();
        assertThat(usage.path("prompt_tokens").asLong()).isEqualTo(6);
        assertThat(usage.path("completion_tokens").asLong()).isEqualTo(14);
        assertThat(usage.path("total_tokens").asLong()).isEqualTo(20);
        long firstMs = (contentArrivals.getFirst() - sentAt) / 1_000_000;
        long doneMs = (stream.events.getLast().arrivalNanos - sentAt) / 1_000_000;
        assertThat(doneMs - firstMs).as("first text at %d ms, [DONE] at %d ms", firstMs, doneMs).isGreaterThanOrEqualTo(600);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
        assertThat(sent.path()).doesNotContain("key=");
        assertThat(sent.header("x-goog-api-key")).isEqualTo(GEMINI_KEY);
        assertThat(sent.header("accept")).isEqualTo("text/event-stream");
        assertNoClientCredentialUpstream(sent);
        assertThat(SluiceClient.JSON.readTree(sent.body()).at("/contents/0/parts/0/text").asText()).isEqualTo("hi");
    }

    @Test
    void geminiResourceExhaustedReachesTheClientAs429_FC3() throws Exception {
        upstream.enqueue(MockResponse.status(429, json("""
                {'error':{'code':429,
                  'message':'You exceeded your current quota, please check your plan and billing details.',
                  'status':'RESOURCE_EXHAUSTED',
                  'details':[
                    {'@type':'type.googleapis.com/google.rpc.QuotaFailure','violations':[
                      {'quotaMetric':'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                       'quotaId':'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                       'quotaDimensions':{'location':'global','model':'gemini-2.5-flash'},'quotaValue':'10'}]},
                    {'@type':'type.googleapis.com/google.rpc.Help','links':[
                      {'description':'Learn more about Gemini API quotas','url':'https://ai.google.dev/gemini-api/docs/rate-limits'}]},
                    {'@type':'type.googleapis.com/google.rpc.RetryInfo','retryDelay':'30s'}]}}""")));

        HttpResponse<String> response = client.post("/v1/chat/completions", clientKey,
                SluiceClient.chat("gemini/" + GEMINI_MODEL, false));

        JsonNode error = client.expect(response, 429);
        assertThat(error.at("/error/type").asText()).isEqualTo("rate_limit_error");
        assertThat(error.at("/error/code").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        // FC-3: Google RetryInfo.retryDelay "30s" (read by the plugin as a structured hint) reaches the client
        assertThat(response.headers().firstValue("Retry-After")).hasValue("30");
        assertThat(error.at("/error/message").asText()).isEqualTo("[gemini/" + GEMINI_MODEL
                + "] HTTP 429: You exceeded your current quota, please check your plan and billing details.");
        assertRoutedTo(response, "gemini", geminiConnection, GEMINI_MODEL);
        assertThat(response.body()).doesNotContain(GEMINI_KEY);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
        assertThat(upstream.requestCount()).as("one connection, one attempt").isEqualTo(1);
    }

    // ================================================================ Anthropic client (API-3)

    @Test
    void claudeCodesBareDatedAndFutureModelIdsRouteToClaudeWithoutBeingListed_API1() throws Exception {
        String answer = json("""
                {'id':'msg_1','type':'message','role':'assistant','model':'claude-opus-4-8',
                 'content':[{'type':'text','text':'hi'}],'stop_reason':'end_turn','stop_sequence':null,
                 'usage':{'input_tokens':1,'output_tokens':1}}""");
        for (String model : List.of("claude-opus-4-8", "claude-haiku-4-5-20251001")) {
            upstream.enqueue(MockResponse.json(200, answer));
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("model", model);
            body.put("max_tokens", 64);
            body.put("messages", List.of(Map.of("role", "user", "content", "hi")));

            HttpResponse<String> response = post("/v1/messages", anthropicHeaders(), body);

            client.expect(response, 200);
            assertThat(response.headers().firstValue("X-Sluice-Provider")).hasValue("claude");
            RecordedRequest sent = take();
            assertThat(sent.path()).isEqualTo("/v1/messages");
            assertThat(SluiceClient.JSON.readTree(sent.body()).get("model").asText()).isEqualTo(model);
        }
    }

    @Test
    void anthropicClientGetsAMessageFromClaude_API3() throws Exception {
        upstream.enqueue(MockResponse.json(200, json("""
                {'id':'msg_013Zva2CMHLNnXjNJJKqJ2EF','type':'message','role':'assistant','model':'claude-sonnet-4-5-20250929',
                 'content':[{'type':'text','text':'Hi! I am Claude.'}],
                 'stop_reason':'end_turn','stop_sequence':null,
                 'usage':{'input_tokens':14,'output_tokens':8}}""")));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("max_tokens", 1024);
        body.put("system", "You are Claude.");
        body.put("messages", List.of(Map.of("role", "user", "content", "Hello, Claude")));
        Map<String, String> headers = anthropicHeaders();
        headers.put("anthropic-version", "2023-01-01");
        // the client's betas go upstream, but never one that changes who is authenticated (docs/providers/claude.md § 3)
        headers.put("anthropic-beta", "prompt-caching-2024-07-31,oauth-2025-04-20,files-api-2025-04-14");
        HttpResponse<String> response = post("/v1/messages", headers, body);

        JsonNode message = client.expect(response, 200);
        assertThat(message.path("id").asText()).isEqualTo("msg_013Zva2CMHLNnXjNJJKqJ2EF");
        assertThat(message.path("type").asText()).isEqualTo("message");
        assertThat(message.path("role").asText()).isEqualTo("assistant");
        assertThat(message.path("model").asText()).isEqualTo("claude-sonnet-4-5-20250929");
        assertThat(message.path("content")).hasSize(1);
        assertThat(message.at("/content/0/type").asText()).isEqualTo("text");
        assertThat(message.at("/content/0/text").asText()).isEqualTo("Hi! I am Claude.");
        assertThat(message.path("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(message.path("stop_sequence").isNull()).isTrue();
        assertThat(message.at("/usage/input_tokens").asLong()).isEqualTo(14);
        assertThat(message.at("/usage/output_tokens").asLong()).isEqualTo(8);
        assertRoutedTo(response, "claude", claudeConnection, CLAUDE_MODEL);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1/messages");
        assertThat(sent.header("x-api-key")).as("the connection's key, never the client's").isEqualTo(CLAUDE_KEY);
        assertThat(sent.header("anthropic-version")).as("the client's version is handed on").isEqualTo("2023-01-01");
        assertThat(sent.header("anthropic-beta")).isEqualTo("prompt-caching-2024-07-31,files-api-2025-04-14");
        assertNoClientCredentialUpstream(sent);
        JsonNode upstreamBody = SluiceClient.JSON.readTree(sent.body());
        assertThat(fieldNames(upstreamBody)).containsExactly("model", "max_tokens", "system", "messages");
        assertThat(upstreamBody.path("model").asText()).isEqualTo(CLAUDE_MODEL);
        assertThat(upstreamBody.path("max_tokens").asInt()).isEqualTo(1024);
        assertThat(upstreamBody.path("system").asText()).isEqualTo("You are Claude.");
        assertThat(upstreamBody.path("messages")).hasSize(1);
        assertThat(upstreamBody.at("/messages/0/role").asText()).isEqualTo("user");
        assertThat(text(upstreamBody.at("/messages/0/content"))).isEqualTo("Hello, Claude");
    }

    @Test
    void anthropicClientStreamsFromClaudeInAnthropicEventOrder_API3() throws Exception {
        upstream.enqueue(MockResponse.sse(anthropicEvents(
                "{'type':'message_start','message':{'id':'msg_01AnthStream','type':'message','role':'assistant','content':[],"
                        + "'model':'claude-sonnet-4-5-20250929','stop_reason':null,'stop_sequence':null,"
                        + "'usage':{'input_tokens':19,'output_tokens':1}}}",
                "{'type':'content_block_start','index':0,'content_block':{'type':'text','text':''}}",
                "{'type':'ping'}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':'Hello'}}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':' from'}}",
                "{'type':'content_block_delta','index':0,'delta':{'type':'text_delta','text':' Claude!'}}",
                "{'type':'content_block_stop','index':0}",
                "{'type':'message_delta','delta':{'stop_reason':'end_turn','stop_sequence':null},'usage':{'output_tokens':6}}",
                "{'type':'message_stop'}"), Duration.ofMillis(100)));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("max_tokens", 256);
        body.put("system", "Greet.");
        body.put("messages", List.of(Map.of("role", "user", "content", List.of(Map.of("type", "text", "text", "Say hello")))));
        body.put("stream", true);
        long sentAt = System.nanoTime();
        Sse stream = postStream("/v1/messages", anthropicHeaders(), body);

        assertThat(stream.status).as(stream::toString).isEqualTo(200);
        assertThat(stream.header("Content-Type")).startsWith("text/event-stream");
        assertThat(stream.header("X-Sluice-Provider")).isEqualTo("claude");
        List<SseEvent> events = stream.events.stream().filter(e -> !"ping".equals(e.name)).toList();
        List<String> names = events.stream().map(e -> e.name).toList();
        assertThat(names).as(stream::toString).containsExactly("message_start", "content_block_start",
                "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
                "message_delta", "message_stop");
        assertThat(stream.events).as("no OpenAI [DONE] towards an Anthropic client").noneMatch(e -> "[DONE]".equals(e.data));
        List<JsonNode> data = new ArrayList<>();
        for (SseEvent e : events) {
            JsonNode d = SluiceClient.JSON.readTree(e.data);
            assertThat(d.path("type").asText()).as("data.type matches the event name").isEqualTo(e.name);
            data.add(d);
        }
        JsonNode start = data.get(0).path("message");
        assertThat(start.path("id").asText()).isEqualTo("msg_01AnthStream");
        assertThat(start.path("type").asText()).isEqualTo("message");
        assertThat(start.path("role").asText()).isEqualTo("assistant");
        assertThat(start.path("model").asText()).isEqualTo("claude-sonnet-4-5-20250929");
        assertThat(start.path("content")).isEmpty();
        assertThat(data.get(1).path("index").asInt()).isZero();
        assertThat(data.get(1).path("content_block")).isEqualTo(SluiceClient.JSON.readTree("{\"type\":\"text\",\"text\":\"\"}"));
        StringBuilder text = new StringBuilder();
        for (JsonNode d : data.subList(2, 5)) {
            assertThat(d.path("index").asInt()).isZero();
            assertThat(d.at("/delta/type").asText()).isEqualTo("text_delta");
            text.append(d.at("/delta/text").asText());
        }
        assertThat(text).hasToString("Hello from Claude!");
        assertThat(data.get(5).path("index").asInt()).isZero();
        assertThat(data.get(6).at("/delta/stop_reason").asText()).isEqualTo("end_turn");
        assertThat(data.get(6).at("/usage/output_tokens").asLong()).isEqualTo(6);
        // passthrough (API-3): the upstream's events arrive unchanged, input tokens stay in message_start
        assertThat(data.get(0).at("/message/usage/input_tokens").asLong()).isEqualTo(19);
        long firstDeltaMs = (events.get(2).arrivalNanos - sentAt) / 1_000_000;
        long stopMs = (events.getLast().arrivalNanos - sentAt) / 1_000_000;
        assertThat(stopMs - firstDeltaMs).as("first delta at %d ms, message_stop at %d ms", firstDeltaMs, stopMs)
                .isGreaterThanOrEqualTo(300);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1/messages");
        assertThat(sent.header("x-api-key")).isEqualTo(CLAUDE_KEY);
        assertThat(sent.header("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(sent.header("accept")).isEqualTo("text/event-stream");
        assertNoClientCredentialUpstream(sent);
        JsonNode upstreamBody = SluiceClient.JSON.readTree(sent.body());
        // Anthropic refuses unknown fields: the stream_options the canonical model adds must not reach it
        assertThat(fieldNames(upstreamBody)).containsExactly("model", "max_tokens", "system", "messages", "stream");
        assertThat(upstreamBody.path("model").asText()).isEqualTo(CLAUDE_MODEL);
        assertThat(upstreamBody.path("max_tokens").asInt()).isEqualTo(256);
        assertThat(upstreamBody.path("system").asText()).isEqualTo("Greet.");
        assertThat(text(upstreamBody.at("/messages/0/content"))).isEqualTo("Say hello");
    }

    @Test
    void anthropicClientGetsAMessageFromGemini_API3() throws Exception {
        upstream.enqueue(MockResponse.json(200, json("""
                {'candidates':[{'content':{'parts':[{'text':'Hello from Gemini.'}],'role':'model'},'finishReason':'STOP','index':0}],
                 'usageMetadata':{'promptTokenCount':10,'candidatesTokenCount':4,'totalTokenCount':14},
                 'modelVersion':'gemini-2.5-flash','responseId':'gm-anth-1'}""")));

        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "gemini/" + GEMINI_MODEL);
        body.put("max_tokens", 200);
        body.put("system", "Be friendly.");
        body.put("messages", List.of(Map.of("role", "user", "content", "Hello")));
        HttpResponse<String> response = post("/v1/messages", anthropicHeaders(), body);

        JsonNode message = client.expect(response, 200);
        assertThat(message.path("id").asText()).isEqualTo("msg_gm-anth-1");
        assertThat(message.path("type").asText()).isEqualTo("message");
        assertThat(message.path("role").asText()).isEqualTo("assistant");
        assertThat(message.path("model").asText()).isEqualTo(GEMINI_MODEL);
        assertThat(message.path("content")).hasSize(1);
        assertThat(message.at("/content/0/type").asText()).isEqualTo("text");
        assertThat(message.at("/content/0/text").asText()).isEqualTo("Hello from Gemini.");
        assertThat(message.path("stop_reason").asText()).isEqualTo("end_turn");
        assertThat(message.at("/usage/input_tokens").asLong()).isEqualTo(10);
        assertThat(message.at("/usage/output_tokens").asLong()).isEqualTo(4);
        assertRoutedTo(response, "gemini", geminiConnection, GEMINI_MODEL);

        RecordedRequest sent = take();
        assertThat(sent.path()).isEqualTo("/v1beta/models/gemini-2.5-flash:generateContent");
        assertThat(sent.header("x-goog-api-key")).isEqualTo(GEMINI_KEY);
        assertThat(sent.header("x-api-key")).as("no Anthropic header reaches Google").isNull();
        assertThat(sent.header("anthropic-version")).isNull();
        assertNoClientCredentialUpstream(sent);
        JsonNode upstreamBody = SluiceClient.JSON.readTree(sent.body());
        assertThat(upstreamBody.at("/systemInstruction/parts/0/text").asText()).isEqualTo("Be friendly.");
        assertThat(upstreamBody.at("/contents/0/role").asText()).isEqualTo("user");
        assertThat(upstreamBody.at("/contents/0/parts/0/text").asText()).isEqualTo("Hello");
        assertThat(upstreamBody.at("/generationConfig/maxOutputTokens").asInt()).isEqualTo(200);
    }

    @Test
    void anthropicRequestWithoutMaxTokensIs400InTheAnthropicEnvelope_API3() throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", "claude/" + CLAUDE_MODEL);
        body.put("messages", List.of(Map.of("role", "user", "content", "Hello")));
        HttpResponse<String> response = post("/v1/messages", anthropicHeaders(), body);

        JsonNode error = client.expect(response, 400);
        assertThat(fieldNames(error)).containsExactly("type", "error");
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.at("/error/message").asText()).contains("max_tokens");
        assertThat(error.path("error").has("code")).as("no OpenAI fields in the Anthropic envelope").isFalse();
        assertThat(error.path("error").has("param")).isFalse();
        assertThat(response.headers().firstValue("X-Request-Id")).isPresent();
        assertThat(response.headers().firstValue("X-Sluice-Provider")).as("never routed").isEmpty();

        // a field of the wrong type is named too, and nothing reaches the upstream
        body.put("max_tokens", "lots");
        HttpResponse<String> wrongType = post("/v1/messages", anthropicHeaders(), body);
        JsonNode wrongTypeError = client.expect(wrongType, 400);
        assertThat(wrongTypeError.at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(wrongTypeError.at("/error/message").asText()).contains("max_tokens");
        assertThat(upstream.takeRequest(Duration.ofMillis(200))).isNull();
        assertThat(upstream.requestCount()).isZero();
    }

    // ================================================================ helpers

    /** Headers of an Anthropic SDK client: the Sluice key as {@code x-api-key}, and a version. */
    private Map<String, String> anthropicHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-api-key", clientKey);
        h.put("anthropic-version", "2023-06-01");
        return h;
    }

    private RecordedRequest take() throws InterruptedException {
        RecordedRequest r = upstream.takeRequest(TAKE);
        assertThat(r).as("the mock upstream got a request; server output:\n%s", sluice.output()).isNotNull();
        return r;
    }

    /** Neither the client's Sluice key nor the admin key reaches the upstream, in any header. */
    private void assertNoClientCredentialUpstream(RecordedRequest sent) {
        assertThat(sent.header("authorization")).as("no Authorization upstream for an API-key connection").isNull();
        assertThat(sent.headers().values()).noneMatch(v -> v.contains(clientKey) || v.contains(adminKey));
        assertThat(sent.body()).doesNotContain(clientKey);
    }

    private static void assertRoutedTo(HttpResponse<String> response, String provider, String connection, String model) {
        assertThat(response.headers().firstValue("X-Sluice-Provider")).hasValue(provider);
        assertThat(response.headers().firstValue("X-Sluice-Connection-Id")).hasValue(connection);
        assertThat(response.headers().firstValue("X-Sluice-Model")).hasValue(model);
        assertThat(response.headers().firstValue("X-Request-Id")).isPresent();
    }

    /** A message's text, whether Anthropic content is a string or an array of text blocks. */
    private static String text(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode block : content) {
            assertThat(block.path("type").asText()).as(content.toString()).isEqualTo("text");
            sb.append(block.path("text").asText());
        }
        return sb.toString();
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** JSON written with single quotes for readability; {@code \\'} stands for a literal quote inside strings. */
    private static String json(String singleQuoted) {
        String s = singleQuoted.replace("\\\\'", "\u0000").replace('\'', '"').replace("\u0000", "\\\"");
        try {
            return SluiceClient.JSON.writeValueAsString(SluiceClient.JSON.readTree(s));
        } catch (IOException e) {
            throw new AssertionError("bad test JSON: " + s, e);
        }
    }

    /**
     * Anthropic stream events. The mock writes {@code data: <payload>\n\n}; each payload is the
     * event's JSON followed by its {@code event:} line, which the SSE format allows in any order
     * within an event, so the plugin sees both the name and the data as Anthropic sends them.
     */
    private static List<String> anthropicEvents(String... singleQuoted) {
        List<String> payloads = new ArrayList<>();
        for (String e : singleQuoted) {
            String data = json(e);
            String type = readTree(data).path("type").asText();
            payloads.add(data + "\nevent: " + type);
        }
        return payloads;
    }

    private static JsonNode readTree(String json) {
        try {
            return SluiceClient.JSON.readTree(json);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private HttpResponse<String> post(String path, Map<String, String> headers, Object body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(sluice.baseUrl().resolve(path))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(SluiceClient.toJson(body)));
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Posts and reads the answer as server-sent events, noting when each event's data arrived. */
    private Sse postStream(String path, Map<String, String> headers, Object body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(sluice.baseUrl().resolve(path))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(SluiceClient.toJson(body)));
        headers.forEach(b::header);
        HttpResponse<InputStream> response = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        List<SseEvent> events = new ArrayList<>();
        StringBuilder raw = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String name = null;
            StringBuilder data = null;
            long arrival = 0;
            String line;
            while ((line = in.readLine()) != null) {
                raw.append(line).append('\n');
                if (line.isEmpty()) {
                    if (data != null) {
                        events.add(new SseEvent(name, data.toString(), arrival));
                    }
                    name = null;
                    data = null;
                } else if (line.startsWith("event:")) {
                    name = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                    String value = line.substring(line.startsWith("data: ") ? 6 : 5);
                    if (data == null) {
                        data = new StringBuilder(value);
                        arrival = System.nanoTime();
                    } else {
                        data.append('\n').append(value);
                    }
                }
            }
            if (data != null) {
                events.add(new SseEvent(name, data.toString(), arrival));
            }
        }
        return new Sse(response.statusCode(), response.headers().map(), events, raw.toString(), sluice.output());
    }

    private record SseEvent(String name, String data, long arrivalNanos) {
    }

    private record Sse(int status, Map<String, List<String>> headers, List<SseEvent> events, String raw, String serverOutput) {

        String header(String name) {
            for (Map.Entry<String, List<String>> h : headers.entrySet()) {
                if (h.getKey().equalsIgnoreCase(name) && !h.getValue().isEmpty()) {
                    return h.getValue().getFirst();
                }
            }
            return null;
        }

        @Override
        public String toString() {
            return status + " " + headers + "\n" + raw + "\nserver output:\n" + serverOutput;
        }
    }
}
