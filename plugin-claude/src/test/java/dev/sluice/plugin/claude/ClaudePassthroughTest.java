package dev.sluice.plugin.claude;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.Credentials;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamRequest;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Native passthrough of Anthropic Messages requests: the body goes upstream byte-for-byte, the
 * headers are those of the translated path, and a 2xx answer comes back unread.
 */
class ClaudePassthroughTest {

    private static final String BASE = "http://127.0.0.1:18080";
    private static final String MESSAGES_PATH = "/v1/messages";
    private static final Duration TIMEOUT = Duration.ofSeconds(9);

    /**
     * A client body the canonical model cannot carry whole: a thinking block with its signature, a
     * {@code cache_control} breakpoint, odd spacing and key order, non-ASCII text and an unknown field.
     */
    static final String BODY = "{\"model\":\"claude-sonnet-4-5-20250929\",  \"max_tokens\":1024,\n"
            + "\"system\":[{\"type\":\"text\",\"text\":\"Be terse.\",\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}}],"
            + "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":2048},"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"Hi, wörld 😀\"},"
            + "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"Greet back.\","
            + "\"signature\":\"EqQBCkYIBRgCKkDq+/sig==\"},{\"type\":\"text\",\"text\":\"Hello!\"}]},"
            + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Again\",\"cache_control\":{\"type\":\"ephemeral\"}}]}],"
            + "\"x_unknown_field\":[1,2.50,null]}";

    private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"Hello\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}";
    private static final String UNAUTHORIZED = "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
            + "\"message\":\"OAuth token has expired.\"}}";

    private final FakeUpstream upstream = new FakeUpstream();

    private ProviderExecutor executor() {
        return new ClaudeExecutorFactory().create(FakeHost.create(upstream, Map.of()));
    }

    private static UpstreamTarget apiKey() {
        return new UpstreamTarget("c1", "claude", ProviderClass.APIKEY, BASE, new Credentials("sk-ant-api03-secret", null, null, null),
                Map.of());
    }

    private static UpstreamTarget oauth(String accessToken, String refreshToken, Long expiresAt) {
        return new UpstreamTarget("c2", "claude", ProviderClass.OAUTH, BASE, new Credentials(null, accessToken, refreshToken, expiresAt),
                Map.of());
    }

    private static PassthroughCall call(UpstreamTarget target, boolean stream, Map<String, String> clientHeaders) {
        return new PassthroughCall(PassthroughCall.ANTHROPIC_MESSAGES, BODY.getBytes(StandardCharsets.UTF_8), stream, target, "req-1",
                TIMEOUT, clientHeaders);
    }

    private static FakeUpstream.FakeResponse json(int status, String body) {
        return new FakeUpstream.FakeResponse(status, Map.of("content-type", List.of("application/json")), body);
    }

    private FakeUpstream.FakeResponse ok() {
        var r = json(200, ANSWER);
        upstream.answer(r);
        return r;
    }

    private static <T> T failure(PassthroughOutcome outcome, Class<T> type) {
        assertThat(outcome).isInstanceOf(PassthroughOutcome.Failed.class);
        return type.cast(((PassthroughOutcome.Failed) outcome).failure());
    }

    @Test
    void supportsOnlyTheAnthropicMessagesDialect() {
        ProviderExecutor executor = executor();
        assertThat(executor.supportsPassthrough(PassthroughCall.ANTHROPIC_MESSAGES)).isTrue();
        assertThat(executor.supportsPassthrough("openai-chat")).isFalse();
        assertThat(executor.supportsPassthrough("ANTHROPIC-MESSAGES")).isFalse();
        assertThat(executor.supportsPassthrough("")).isFalse();
        assertThat(executor.supportsPassthrough(null)).isFalse();
        assertThatThrownBy(() -> executor.passthrough(new PassthroughCall("openai-chat", new byte[0], false, apiKey(), "r", TIMEOUT, Map.of())))
                .isInstanceOf(IllegalStateException.class);
        assertThat(upstream.requests).isEmpty();
    }

    @Test
    void theBodyIsPostedToV1MessagesByteForByte() {
        ok();
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        executor().passthrough(new PassthroughCall(PassthroughCall.ANTHROPIC_MESSAGES, body, false, apiKey(), "req-1", TIMEOUT, Map.of()));
        UpstreamRequest sent = upstream.last();
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.uri()).isEqualTo(URI.create(BASE + MESSAGES_PATH));
        assertThat(sent.timeout()).isEqualTo(TIMEOUT);
        assertThat(sent.body()).isEqualTo(body);
        assertThat(new String(sent.body(), StandardCharsets.UTF_8))
                .contains("\"signature\":\"EqQBCkYIBRgCKkDq+/sig==\"")
                .contains("\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}")
                .contains("\"x_unknown_field\":[1,2.50,null]");
    }

    @Test
    void apiKeyHeadersAreThoseOfTheTranslatedPath() {
        ok();
        executor().passthrough(call(apiKey(), false, Map.of()));
        assertThat(upstream.last().headers()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "content-type", "application/json",
                "accept", "application/json",
                "user-agent", "Sluice/0.1",
                "anthropic-version", "2023-06-01",
                "x-api-key", "sk-ant-api03-secret"));
    }

    @Test
    void oauthHeadersAreThoseOfTheTranslatedPath_andAStreamAcceptsEventStream() {
        ok();
        executor().passthrough(call(oauth("sk-ant-oat01-access", "rt", FakeHost.NOW.toEpochMilli() + 3_600_000L), true, Map.of()));
        assertThat(upstream.last().headers()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "content-type", "application/json",
                "accept", "text/event-stream",
                "user-agent", "Sluice/0.1",
                "anthropic-version", "2023-06-01",
                "authorization", "Bearer sk-ant-oat01-access",
                "anthropic-beta", "oauth-2025-04-20"));
    }

    @Test
    void theBetaAndVersionRulesApply_andNoOtherClientHeaderIsSent() {
        ok();
        Map<String, String> client = Map.of(
                "anthropic-beta", "prompt-caching-2024-07-31, computer-use-2025-01-24,interleaved-thinking-2025-05-14,x\r\nInjected: 1",
                "anthropic-version", "2024-10-22",
                "x-api-key", "sk-ant-client-key",
                "authorization", "Bearer client",
                "cookie", "a=b");
        executor().passthrough(call(oauth("at-1", null, null), false, client));
        assertThat(upstream.last().headers())
                .containsEntry("anthropic-beta", "oauth-2025-04-20,prompt-caching-2024-07-31,computer-use-2025-01-24,"
                        + "interleaved-thinking-2025-05-14")
                .containsEntry("anthropic-version", "2024-10-22")
                .containsEntry("authorization", "Bearer at-1")
                .doesNotContainKeys("x-api-key", "cookie", "injected");

        executor().passthrough(call(apiKey(), false, Map.of("anthropic-version", "latest\r\nx: y", "anthropic-beta", "oauth-2025-04-20")));
        assertThat(upstream.last().headers())
                .containsEntry("anthropic-version", "2023-06-01")
                .containsEntry("x-api-key", "sk-ant-api03-secret")
                .doesNotContainKey("anthropic-beta");
    }

    @Test
    void a2xxIsAcceptedWithTheSameResponseUnreadAndOpen() throws IOException {
        var sse = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n";
        var response = new FakeUpstream.FakeResponse(200, Map.of("content-type", List.of("text/event-stream")), sse);
        upstream.answer(response);

        PassthroughOutcome outcome = executor().passthrough(call(apiKey(), true, Map.of()));

        assertThat(outcome).isInstanceOf(PassthroughOutcome.Accepted.class);
        assertThat(((PassthroughOutcome.Accepted) outcome).response()).isSameAs(response);
        assertThat(response.closed).as("the runtime closes it").isFalse();
        assertThat(response.body().available()).as("not a byte read").isEqualTo(sse.getBytes(StandardCharsets.UTF_8).length);
        assertThat(response.bodyAtEnd()).isFalse();
        assertThat(new String(response.body().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(sse);
    }

    @Test
    void anyOther2xxIsAcceptedToo() {
        var response = json(201, ANSWER);
        upstream.answer(response);
        PassthroughOutcome outcome = executor().passthrough(call(apiKey(), false, Map.of()));
        assertThat(((PassthroughOutcome.Accepted) outcome).response()).isSameAs(response);
    }

    @Test
    void a429FailsWithTheUpstreamHeadAndBodyAsTheTranslatedPathWould() {
        Map<String, List<String>> headers = Map.of(
                "retry-after", List.of("17"),
                "anthropic-ratelimit-requests-remaining", List.of("0"),
                "request-id", List.of("req_011"));
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Slow down\"},\"request_id\":\"req_011\"}";
        var response = new FakeUpstream.FakeResponse(429, headers, body);
        upstream.answer(response);

        UpstreamError error = failure(executor().passthrough(call(apiKey(), true, Map.of())), UpstreamError.class);

        assertThat(error.status()).isEqualTo(429);
        assertThat(error.head()).isSameAs(response.head());
        assertThat(error.head().headers()).containsAllEntriesOf(headers);
        assertThat(error.body()).isEqualTo(body);
        assertThat(error.errorType()).isEqualTo("rate_limit_error");
        assertThat(error.errorCode()).isEqualTo("rate_limit_error");
        assertThat(error.message()).isEqualTo("Slow down");
        assertThat(response.closed).isTrue();
    }

    @Test
    void redirectsAndInformationalAnswersAreProtocolFailures() {
        var response = new FakeUpstream.FakeResponse(307, Map.of("location", List.of("https://elsewhere.example/v1/messages")), "");
        upstream.answer(response);
        TransportError redirect = failure(executor().passthrough(call(apiKey(), false, Map.of())), TransportError.class);
        assertThat(redirect.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
        assertThat(redirect.message()).contains("307").contains("elsewhere.example");
        assertThat(response.closed).isTrue();

        upstream.answer(101, Map.of(), "");
        assertThat(failure(executor().passthrough(call(apiKey(), false, Map.of())), TransportError.class).kind())
                .isEqualTo(TransportErrorKind.PROTOCOL);
    }

    @Test
    void transportFailuresAndInvalidBaseUrlsAreValues() {
        upstream.fail(new ConnectException("Connection refused"));
        assertThat(failure(executor().passthrough(call(apiKey(), false, Map.of())), TransportError.class).kind())
                .isEqualTo(TransportErrorKind.CONNECT_FAILED);

        upstream.requests.clear();
        UpstreamTarget bad = new UpstreamTarget("c1", "claude", ProviderClass.APIKEY, "http://bad host",
                new Credentials("k", null, null, null), Map.of());
        assertThat(failure(executor().passthrough(call(bad, false, Map.of())), TransportError.class).kind())
                .isEqualTo(TransportErrorKind.OTHER);
        assertThat(upstream.requests).isEmpty();
    }

    @Test
    void anOauth401IsHandedBackAsItCame_theHostRenewsTheTokenAndRetries() {
        upstream.on(MESSAGES_PATH, r -> json(401, UNAUTHORIZED));

        UpstreamError error = failure(executor().passthrough(call(oauth("at-1", "rt-1", FakeHost.NOW.toEpochMilli() - 1), false,
                Map.of())), UpstreamError.class);

        assertThat(upstream.requests).extracting(r -> r.uri().getPath()).as("no token request of its own").containsExactly(MESSAGES_PATH);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-1");
        assertThat(error.status()).isEqualTo(401);
        assertThat(error.body()).isEqualTo(UNAUTHORIZED);
    }
}
