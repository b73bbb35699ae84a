package dev.sluice.plugin.codex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.Credentials;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.plugin.TestingHostContext;
import dev.sluice.toolkit.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The codex executor against a loopback mock of the ChatGPT Codex backend, on the test kit's host
 * (the runtime's real upstream client and built-in Responses executor).
 */
class CodexExecutorTest {

    private static final String MODEL = "gpt-5-codex";
    private static final Duration TAKE = Duration.ofSeconds(5);

    private MockUpstream backend;
    private ProviderExecutor executor;

    @BeforeEach
    void start() {
        backend = MockUpstream.start();
        executor = new CodexExecutorFactory().create(TestingHostContext.builder("codex").build());
    }

    @AfterEach
    void stop() {
        backend.close();
    }

    private UpstreamTarget target(String accessToken, Map<String, Object> psd) {
        return new UpstreamTarget("conn-1", "codex", ProviderClass.OAUTH, backend.baseUrl() + "/backend-api/codex/",
                new Credentials(null, accessToken, "rt", null), psd);
    }

    private UpstreamTarget loggedIn() {
        return target("at-0123456789", Map.of("oauthAccount", Map.of("identity", "acct-1", "accountId", "acct-1")));
    }

    private static ChatCall chat(UpstreamTarget target, boolean stream, List<ChatMessage> messages) {
        ChatRequest request = ChatRequest.builder(MODEL, messages).stream(stream).maxTokens(64).build();
        return ChatCall.builder(request, target).requestId("req-1").build();
    }

    private static List<ChatMessage> hello() {
        return List.of(ChatMessage.text(Role.SYSTEM, "Be brief."), ChatMessage.text(Role.USER, "Say hello"));
    }

    @Test
    void aChatRequestBecomesAStreamingStorelessResponsesRequestWithTheAccountHeaders() throws Exception {
        backend.enqueue(MockResponse.sse(ResponsesStreams.text(MODEL), Duration.ZERO));

        ChatOutcome outcome = executor.chat(chat(loggedIn(), false, hello()));

        RecordedRequest sent = backend.takeRequest(TAKE);
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.path()).isEqualTo("/backend-api/codex/responses");
        assertThat(sent.header("authorization")).isEqualTo("Bearer at-0123456789");
        assertThat(sent.header("chatgpt-account-id")).isEqualTo("acct-1");
        assertThat(sent.header("originator")).isEqualTo("codex_cli_rs");
        assertThat(sent.header("accept")).isEqualTo("text/event-stream");
        assertThat(Json.parse(sent.body())).isEqualTo(Json.parse("""
                {"model":"gpt-5-codex","instructions":"Be brief.",
                 "input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Say hello"}]}],
                 "tool_choice":"auto","parallel_tool_calls":true,"store":false,"stream":true}"""));

        assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);
        ChatResponse answer = ((ChatOutcome.Completed) outcome).response();
        assertThat(answer.choices().get(0).message().textContent()).isEqualTo("Hello");
        assertThat(answer.choices().get(0).finishReason()).isEqualTo("stop");
        assertThat(answer.model()).isEqualTo(MODEL);
        assertThat(answer.usage().promptTokens()).isEqualTo(5);
        assertThat(answer.usage().completionTokens()).isEqualTo(2);
        assertThat(answer.usage().extra()).containsEntry("prompt_tokens_details", "{\"cached_tokens\":1}");
    }

    @Test
    void aStreamedToolCallArrivesAsChatChunksWithReasoningAndFinishToolCalls() throws Exception {
        backend.enqueue(MockResponse.sse(ResponsesStreams.toolCall(MODEL), Duration.ZERO));
        List<ChatMessage> history = List.of(ChatMessage.text(Role.USER, "Weather?"),
                ChatMessage.builder(Role.ASSISTANT).toolCalls(List.of(new ToolCall("call_0", "get_weather", "{\"city\":\"Rome\"}"))).build(),
                ChatMessage.builder(Role.TOOL).toolCallId("call_0").text("sunny").build());

        ChatOutcome outcome = executor.chat(chat(loggedIn(), true, history));

        assertThat(Json.parse(backend.takeRequest(TAKE).body())).extracting(b -> Json.array(b, "input")).isEqualTo(Json.parse("""
                [{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather?"}]},
                 {"type":"function_call","call_id":"call_0","name":"get_weather","arguments":"{\\"city\\":\\"Rome\\"}"},
                 {"type":"function_call_output","call_id":"call_0","output":"sunny"}]"""));
        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        List<StreamChunk> chunks = new ArrayList<>();
        try (ChunkStream stream = ((ChatOutcome.Streaming) outcome).chunks()) {
            StreamChunk c;
            while ((c = stream.next()) != null) {
                chunks.add(c);
            }
        }
        assertThat(chunks.get(0).choices().get(0).role()).isEqualTo(Role.ASSISTANT);
        assertThat(chunks).extracting(c -> c.choices().isEmpty() ? null : c.choices().get(0).reasoningDelta()).contains("thinking");
        StringBuilder args = new StringBuilder();
        chunks.forEach(c -> c.choices().forEach(ch -> ch.toolCalls().forEach(t -> {
            if (t.argumentsDelta() != null) {
                args.append(t.argumentsDelta());
            }
        })));
        assertThat(args.toString()).isEqualTo("{\"city\":\"Paris\"}");
        assertThat(chunks).flatExtracting(c -> c.choices()).flatExtracting(ch -> ch.toolCalls())
                .filteredOn(t -> t.id() != null).singleElement()
                .satisfies(t -> {
                    assertThat(t.id()).isEqualTo("call_abc");
                    assertThat(t.name()).isEqualTo("get_weather");
                    assertThat(t.index()).isZero();
                });
        StreamChunk last = chunks.get(chunks.size() - 1);
        assertThat(last.choices().get(0).finishReason()).isEqualTo("tool_calls");
        assertThat(last.usage().totalTokens()).isEqualTo(13);
    }

    @Test
    void aStreamThatEndsBeforeResponseCompletedIsAnError() throws Exception {
        backend.enqueue(MockResponse.sse(List.of(ResponsesStreams.created(MODEL), ResponsesStreams.textDelta("Hi")), Duration.ZERO));

        ChatOutcome outcome = executor.chat(chat(loggedIn(), true, hello()));

        try (ChunkStream stream = ((ChatOutcome.Streaming) outcome).chunks()) {
            assertThat(stream.next().choices().get(0).role()).isEqualTo(Role.ASSISTANT);
            assertThat(stream.next().choices().get(0).contentDelta()).isEqualTo("Hi");
            assertThatThrownBy(stream::next).isInstanceOf(IOException.class).hasMessageContaining("before response.completed");
        }
    }

    @Test
    void aFailedResponseEventEndsTheStreamNamingTheUpstreamError() throws Exception {
        backend.enqueue(MockResponse.sse(List.of(ResponsesStreams.created(MODEL), "{\"type\":\"response.failed\",\"response\":"
                + "{\"id\":\"resp_1\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}"), Duration.ZERO));

        ChatOutcome outcome = executor.chat(chat(loggedIn(), false, hello()));

        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        assertThat(((ChatOutcome.Failed) outcome).failure().toString()).contains("server_error: boom");
    }

    @Test
    void theBackendsDetailErrorIsReadAsTheUpstreamError() throws Exception {
        backend.enqueue(MockResponse.json(429, "{\"detail\":\"Usage limit reached\"}"));

        ChatOutcome outcome = executor.chat(chat(loggedIn(), false, hello()));

        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        UpstreamError error = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(error.head().status()).isEqualTo(429);
        assertThat(error.message()).isEqualTo("Usage limit reached");
    }

    @Test
    void withoutAStoredAccountTheAccessTokensClaimNamesTheAccount() throws Exception {
        backend.enqueue(MockResponse.sse(ResponsesStreams.text(MODEL), Duration.ZERO));

        executor.chat(chat(target(Jwts.accessToken("acct-from-token", 2_000_000_000L), Map.of()), false, hello()));

        assertThat(backend.takeRequest(TAKE).header("chatgpt-account-id")).isEqualTo("acct-from-token");
    }

    @Test
    void responsesRequestsArePassedThroughUnchangedWithTheAccountHeaders() throws Exception {
        String body = "{\"model\":\"gpt-5-codex\",\"instructions\":\"x\",\"input\":[{\"type\":\"message\",\"role\":\"user\","
                + "\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]}],\"tools\":[{\"type\":\"web_search\"}],"
                + "\"include\":[\"reasoning.encrypted_content\"],\"store\":false,\"stream\":false}";
        backend.enqueue(MockResponse.json(200, "{\"id\":\"resp_9\",\"object\":\"response\",\"status\":\"completed\",\"output\":[]}"));

        assertThat(executor.supportsPassthrough(PassthroughCall.OPENAI_RESPONSES, loggedIn())).isTrue();
        assertThat(executor.supportsPassthrough(PassthroughCall.ANTHROPIC_MESSAGES, loggedIn())).isFalse();
        PassthroughOutcome outcome = executor.passthrough(new PassthroughCall(PassthroughCall.OPENAI_RESPONSES,
                body.getBytes(StandardCharsets.UTF_8), false, loggedIn(), "req-2", Duration.ofSeconds(10), Map.of()));

        assertThat(outcome).isInstanceOf(PassthroughOutcome.Accepted.class);
        ((PassthroughOutcome.Accepted) outcome).response().close();
        RecordedRequest sent = backend.takeRequest(TAKE);
        assertThat(sent.path()).isEqualTo("/backend-api/codex/responses");
        assertThat(sent.body()).isEqualTo(body);
        assertThat(sent.header("authorization")).isEqualTo("Bearer at-0123456789");
        assertThat(sent.header("chatgpt-account-id")).isEqualTo("acct-1");
        assertThat(sent.header("originator")).isEqualTo("codex_cli_rs");
    }

    @Test
    void aContentPartTheBackendCannotTakeIsRefusedBeforeSending() {
        ChatMessage odd = ChatMessage.builder(Role.USER).content(List.of(new dev.sluice.api.chat.ContentPart.Other("input_audio", "{}")))
                .build();

        ChatOutcome outcome = executor.chat(chat(loggedIn(), false, List.of(odd)));

        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        assertThat(((UpstreamError) ((ChatOutcome.Failed) outcome).failure()).head().status()).isEqualTo(400);
        assertThat(backend.requestCount()).isZero();
    }
}
