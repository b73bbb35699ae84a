package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.Role;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The executor end to end against a fake upstream: URL, headers per auth type, SEC-5, outcomes (issue 3). */
class ClaudeExecutorTest {

    private static final String BASE = "http://127.0.0.1:18080";
    private final FakeUpstream upstream = new FakeUpstream();

    private ProviderExecutor executor(Map<String, String> settings) {
        return new ClaudeExecutorFactory().create(FakeHost.create(upstream, settings));
    }

    private ProviderExecutor executor() {
        return executor(Map.of());
    }

    private static UpstreamTarget apiKey(String baseUrl) {
        return new UpstreamTarget("c1", "claude", ProviderClass.APIKEY, baseUrl, new Credentials("sk-ant-api03-secret", null, null, null), Map.of());
    }

    private static UpstreamTarget oauth() {
        return new UpstreamTarget("c2", "claude", ProviderClass.OAUTH, BASE, new Credentials(null, "sk-ant-oat01-access", "refresh",
                FakeHost.NOW.toEpochMilli() + 3_600_000L), Map.of());
    }

    private static ChatRequest request(boolean stream) {
        return new ChatRequest("claude-sonnet-4-5", List.of(ChatMessage.text(Role.USER, "Hi")), List.of(), null, stream, null, null, null,
                List.of(), Map.of());
    }

    private static ChatCall call(UpstreamTarget target, boolean stream, Map<String, String> clientHeaders) {
        return new ChatCall(request(stream), target, "req-1", Duration.ofSeconds(7), clientHeaders);
    }

    private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"Hello\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}";

    private FakeUpstream.FakeResponse ok() {
        var r = new FakeUpstream.FakeResponse(200, Map.of("content-type", List.of("application/json")), ANSWER);
        upstream.answer(r);
        return r;
    }

    @Test
    void postsToV1MessagesUnderTheHostRootBaseUrl_DM1b() {
        ok();
        executor().chat(call(apiKey(BASE), false, Map.of()));
        assertThat(upstream.last().method()).isEqualTo("POST");
        assertThat(upstream.last().uri()).isEqualTo(URI.create(BASE + "/v1/messages"));
        assertThat(upstream.last().timeout()).isEqualTo(Duration.ofSeconds(7));
        executor().chat(call(apiKey(BASE + "/"), false, Map.of()));
        assertThat(upstream.last().uri()).isEqualTo(URI.create(BASE + "/v1/messages"));
        executor().chat(call(apiKey(BASE + "/anthropic/v1"), false, Map.of()));
        assertThat(upstream.last().uri()).isEqualTo(URI.create(BASE + "/anthropic/v1/messages"));
    }

    @Test
    void apiKeyConnectionsSendXApiKeyAndTheDefaultVersion() {
        ok();
        executor().chat(call(apiKey(BASE), false, Map.of()));
        assertThat(upstream.last().headers()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "content-type", "application/json",
                "accept", "application/json",
                "user-agent", "Sluice/0.1",
                "anthropic-version", "2023-06-01",
                "x-api-key", "sk-ant-api03-secret"));
    }

    @Test
    void oauthConnectionsSendTheBearerAccessTokenAndTheOauthBeta() {
        ok();
        executor().chat(call(oauth(), true, Map.of()));
        assertThat(upstream.last().headers()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "content-type", "application/json",
                "accept", "text/event-stream",
                "user-agent", "Sluice/0.1",
                "anthropic-version", "2023-06-01",
                "authorization", "Bearer sk-ant-oat01-access",
                "anthropic-beta", "oauth-2025-04-20"));
    }

    @Test
    void clientBetasAreForwardedButNoneThatChangesWhoIsAuthenticated_SEC5() {
        ok();
        // Claude Code's bodies rely on its betas (context management, effort, mid-conversation system messages)
        String clientBeta = " prompt-caching-2024-07-31, claude-code-20250219,interleaved-thinking-2025-05-14,"
                + "prompt-caching-2024-07-31,oauth-2025-04-20, ,x\r\nInjected: 1";
        executor().chat(call(apiKey(BASE), false, Map.of("anthropic-beta", clientBeta)));
        assertThat(upstream.last().headers()).containsEntry("anthropic-beta",
                "prompt-caching-2024-07-31,claude-code-20250219,interleaved-thinking-2025-05-14");
        executor().chat(call(oauth(), false, Map.of("anthropic-beta", clientBeta)));
        assertThat(upstream.last().headers()).containsEntry("anthropic-beta",
                "oauth-2025-04-20,prompt-caching-2024-07-31,claude-code-20250219,interleaved-thinking-2025-05-14");
        executor().chat(call(apiKey(BASE), false, Map.of("anthropic-beta", "oauth-2025-04-20")));
        assertThat(upstream.last().headers()).as("a client cannot switch an API-key connection to OAuth").doesNotContainKey("anthropic-beta");
    }

    @Test
    void operatorsCanDenyBetasByNameOrPrefix() {
        ok();
        executor(Map.of("deniedAnthropicBetas", "context-1m-2025-08-07, computer-use-*, Not A Beta!"))
                .chat(call(apiKey(BASE), false, Map.of("anthropic-beta",
                        "context-1m-2025-08-07,computer-use-2025-01-24,interleaved-thinking-2025-05-14")));
        assertThat(upstream.last().headers()).containsEntry("anthropic-beta", "interleaved-thinking-2025-05-14");
    }

    @Test
    void aClientAnthropicVersionOverridesTheDefaultWhenItIsADate() {
        ok();
        executor().chat(call(apiKey(BASE), false, Map.of("anthropic-version", "2024-10-22")));
        assertThat(upstream.last().headers()).containsEntry("anthropic-version", "2024-10-22");
        executor().chat(call(apiKey(BASE), false, Map.of("anthropic-version", "2023-06-01\r\nx-api-key: stolen")));
        assertThat(upstream.last().headers()).containsEntry("anthropic-version", "2023-06-01");
    }

    @Test
    void noOtherClientHeaderReachesAnthropic_SEC5() {
        ok();
        Map<String, String> client = new HashMap<>();
        client.put("authorization", "Bearer gateway-key");
        client.put("x-api-key", "gateway-key");
        client.put("cookie", "session=1");
        executor().chat(call(apiKey(BASE), false, client));
        assertThat(upstream.last().headers()).containsEntry("x-api-key", "sk-ant-api03-secret")
                .doesNotContainKeys("authorization", "cookie");
    }

    @Test
    void theBodyIsTheTranslatedMessagesRequest() {
        ok();
        executor(Map.of("defaultMaxTokens", "1000")).chat(call(apiKey(BASE), true, Map.of()));
        assertThat(Json.parse(upstream.lastBody())).isEqualTo(Json.parse(
                "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":1000,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"stream\":true}"));
        executor(Map.of("defaultMaxTokens", "lots")).chat(call(apiKey(BASE), false, Map.of()));
        assertThat(Json.get(Json.parse(upstream.lastBody()), "max_tokens")).as("a bad setting falls back to the default").isEqualTo(4096L);
    }

    @Test
    void aCompleteAnswerIsTranslatedAndTheResponseReadToItsEndAndClosed() {
        var response = ok();
        ChatOutcome outcome = executor().chat(call(apiKey(BASE), false, Map.of()));
        assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);
        var completed = (ChatOutcome.Completed) outcome;
        assertThat(completed.response().choices().get(0).message().textContent()).isEqualTo("Hello");
        assertThat(completed.response().created()).isEqualTo(FakeHost.NOW.getEpochSecond());
        assertThat(completed.head().status()).isEqualTo(200);
        assertThat(response.closed).isTrue();
        assertThat(response.bodyAtEnd()).isTrue();
    }

    @Test
    void aStreamIsReturnedBeforeAnyEventIsRead() throws IOException {
        InputStream untouchable = new InputStream() {
            @Override
            public int read() {
                throw new AssertionError("the executor read the stream before returning it");
            }
        };
        upstream.answer(new FakeUpstream.FakeResponse(200, Map.of("content-type", List.of("text/event-stream")), untouchable));
        ChatOutcome outcome = executor().chat(call(apiKey(BASE), true, Map.of()));
        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        ((ChatOutcome.Streaming) outcome).chunks().close();

        upstream.answer(new FakeUpstream.FakeResponse(200, Map.of(), Golden.read("stream/text.sse")));
        var streaming = (ChatOutcome.Streaming) executor().chat(call(apiKey(BASE), true, Map.of()));
        try (var chunks = streaming.chunks()) {
            // message_start sends nothing of its own; the ping before the first text is a heartbeat
            assertThat(chunks.next().kind()).isEqualTo(FrameKind.HEARTBEAT);
            var first = chunks.next();
            assertThat(first.kind()).isEqualTo(FrameKind.CONTENT);
            assertThat(first.choices()).hasSize(1);
            assertThat(first.choices().get(0).role()).as("the role held since message_start").isEqualTo(Role.ASSISTANT);
            assertThat(first.choices().get(0).contentDelta()).isEqualTo("Hello");
            assertThat(first.created()).isEqualTo(FakeHost.NOW.getEpochSecond());
            var second = chunks.next();
            assertThat(second.choices().get(0).role()).as("only the first chunk carries the role").isNull();
            assertThat(second.choices().get(0).contentDelta()).isEqualTo(", wörld! 😀\n");
        }
    }

    @Test
    void anErrorStatusKeepsStatusEveryHeaderAndBodyWithTheAnthropicErrorType_FC3() {
        Map<String, List<String>> headers = Map.of(
                "retry-after", List.of("17"),
                "anthropic-ratelimit-requests-limit", List.of("50"),
                "anthropic-ratelimit-requests-remaining", List.of("0"),
                "anthropic-ratelimit-requests-reset", List.of("2026-01-01T00:00:17Z"),
                "anthropic-ratelimit-unified-status", List.of("rejected"),
                "request-id", List.of("req_011"));
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"},\"request_id\":\"req_011\"}";
        var response = new FakeUpstream.FakeResponse(429, headers, body);
        upstream.answer(response);
        ChatOutcome outcome = executor().chat(call(apiKey(BASE), true, Map.of()));
        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        var error = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(error.status()).isEqualTo(429);
        assertThat(error.head().headers()).containsAllEntriesOf(headers);
        assertThat(error.body()).isEqualTo(body);
        assertThat(error.errorType()).isEqualTo("rate_limit_error");
        assertThat(error.errorCode()).isEqualTo("rate_limit_error");
        assertThat(error.message()).isEqualTo("Number of request tokens has exceeded your per-minute rate limit");
        assertThat(response.closed).isTrue();
    }

    @Test
    void anErrorBodyThatIsNotJsonIsKeptAsText() {
        upstream.answer(529, Map.of(), "<html>Overloaded</html>");
        var error = (UpstreamError) ((ChatOutcome.Failed) executor().chat(call(apiKey(BASE), false, Map.of()))).failure();
        assertThat(error.status()).isEqualTo(529);
        assertThat(error.body()).isEqualTo("<html>Overloaded</html>");
        assertThat(error.errorType()).isNull();
        assertThat(error.message()).isNull();
    }

    @Test
    void redirectsAndInformationalAnswersAreProtocolFailures() {
        var response = new FakeUpstream.FakeResponse(307, Map.of("location", List.of("https://elsewhere.example/v1/messages")), "");
        upstream.answer(response);
        var failure = (TransportError) ((ChatOutcome.Failed) executor().chat(call(apiKey(BASE), false, Map.of()))).failure();
        assertThat(failure.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
        assertThat(failure.message()).contains("307").contains("elsewhere.example");
        assertThat(response.closed).isTrue();
        upstream.answer(101, Map.of(), "");
        assertThat(((TransportError) ((ChatOutcome.Failed) executor().chat(call(apiKey(BASE), false, Map.of()))).failure()).kind())
                .isEqualTo(TransportErrorKind.PROTOCOL);
    }

    @Test
    void a2xxBodyThatIsNotAMessagesAnswerIsAProtocolFailure() {
        var response = new FakeUpstream.FakeResponse(200, Map.of(), "{\"object\":\"chat.completion\",\"choices\":[]}");
        upstream.answer(response);
        var failure = (TransportError) ((ChatOutcome.Failed) executor().chat(call(apiKey(BASE), false, Map.of()))).failure();
        assertThat(failure.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
        assertThat(failure.message()).contains("not a Messages answer");
        assertThat(response.closed).isTrue();
    }

    @Test
    void transportFailuresAreValuesNotExceptions() {
        upstream.fail(new ConnectException("Connection refused"));
        var failure = (TransportError) ((ChatOutcome.Failed) executor().chat(call(apiKey(BASE), false, Map.of()))).failure();
        assertThat(failure.kind()).isEqualTo(TransportErrorKind.CONNECT_FAILED);
    }

    @Test
    void anInvalidBaseUrlIsAFailureNotAnException() {
        ChatOutcome outcome = executor().chat(call(apiKey("http://bad host"), false, Map.of()));
        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        assertThat(upstream.requests).isEmpty();
    }
}
