package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamRequest;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * OAuth token refresh of {@code oauth} connections (issue 3, SPEC CC-6): before sending when the
 * token is expired, after a {@code 401} with one retry, a failed refresh as {@code expired}, and one
 * token request for concurrent calls.
 */
class ClaudeOAuthRefreshTest {

    private static final String BASE = "http://127.0.0.1:18080";
    private static final String TOKEN_PATH = "/v1/oauth/token";
    private static final String TOKEN_URL = "http://127.0.0.1:18081" + TOKEN_PATH;
    private static final String MESSAGES_PATH = "/v1/messages";
    private static final long NOW_MS = FakeHost.NOW.toEpochMilli();
    private static final Duration TIMEOUT = Duration.ofSeconds(7);

    private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"Hello\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}";
    private static final String UNAUTHORIZED = "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
            + "\"message\":\"OAuth token has expired.\"},\"request_id\":\"req_401\"}";

    private final FakeUpstream upstream = new FakeUpstream();
    private final MutableClock clock = new MutableClock(NOW_MS);
    private final RecordingUpdates updates = new RecordingUpdates();

    // ------------------------------------------------------------------ fixtures

    /** A clock tests move by hand. */
    static final class MutableClock implements InstantSource {
        private final AtomicLong millis;

        MutableClock(long millis) {
            this.millis = new AtomicLong(millis);
        }

        void advance(long ms) {
            millis.addAndGet(ms);
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        @Override
        public long millis() {
            return millis.get();
        }
    }

    record Update(String connectionId, String accessToken, String refreshToken, Long expiresAt) {
    }

    /** Records every renewal; answers {@code stored} (or throws when {@code failure} is set). */
    static final class RecordingUpdates implements CredentialUpdates {
        final List<Update> updates = Collections.synchronizedList(new ArrayList<>());
        volatile boolean stored = true;
        volatile RuntimeException failure;

        @Override
        public boolean oauthRenewed(String connectionId, String accessToken, String refreshToken, Long expiresAt) {
            updates.add(new Update(connectionId, accessToken, refreshToken, expiresAt));
            if (failure != null) {
                throw failure;
            }
            return stored;
        }
    }

    private ProviderExecutor executor(Map<String, String> settings, CredentialUpdates credentialUpdates) {
        return new ClaudeExecutorFactory().create(FakeHost.create(upstream, settings, clock, credentialUpdates));
    }

    private ProviderExecutor executor() {
        return executor(Map.of("oauthTokenUrl", TOKEN_URL), updates);
    }

    private static UpstreamTarget oauth(String accessToken, String refreshToken, Long expiresAt) {
        return new UpstreamTarget("c9", "claude", ProviderClass.OAUTH, BASE,
                new Credentials(null, accessToken, refreshToken, expiresAt), Map.of());
    }

    private static ChatCall call(UpstreamTarget target) {
        ChatRequest request = new ChatRequest("claude-sonnet-4-5", List.of(ChatMessage.text(Role.USER, "Hi")), List.of(), null, false,
                null, null, null, List.of(), Map.of());
        return new ChatCall(request, target, "req-1", TIMEOUT, Map.of());
    }

    private static FakeUpstream.FakeResponse json(int status, String body) {
        return new FakeUpstream.FakeResponse(status, Map.of("content-type", List.of("application/json")), body);
    }

    private static String tokens(String accessToken, String refreshToken, long expiresIn) {
        return "{\"token_type\":\"Bearer\",\"access_token\":\"" + accessToken + "\""
                + (refreshToken == null ? "" : ",\"refresh_token\":\"" + refreshToken + "\"")
                + ",\"expires_in\":" + expiresIn + ",\"scope\":\"user:inference\"}";
    }

    private void tokenEndpointAnswers(int status, String body) {
        upstream.on(TOKEN_PATH, r -> json(status, body));
    }

    private void messagesAnswerOk() {
        upstream.on(MESSAGES_PATH, r -> json(200, ANSWER));
    }

    /** 401 for the given bearer token, 200 for any other. */
    private void messagesRefuse(String accessToken) {
        upstream.on(MESSAGES_PATH, r -> ("Bearer " + accessToken).equals(r.headers().get("authorization"))
                ? json(401, UNAUTHORIZED) : json(200, ANSWER));
    }

    private static String body(UpstreamRequest r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static String grant(String refreshToken) {
        return "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"" + refreshToken
                + "\",\"client_id\":\"9d1c250a-e61b-44d9-88ed-5944d1962f5e\"}";
    }

    private static UpstreamError error(ChatOutcome outcome) {
        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        return (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
    }

    private static String paths(List<UpstreamRequest> requests) {
        synchronized (requests) {
            return String.join(",", requests.stream().map(r -> r.uri().getPath()).toList());
        }
    }

    // ------------------------------------------------------------------ before sending

    @Test
    void anExpiredTokenIsRefreshedBeforeSendingAndTheNewTokensAreStored() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 28_800));
        messagesAnswerOk();

        ChatOutcome outcome = executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1_000)));

        assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(paths(upstream.requests)).isEqualTo(TOKEN_PATH + "," + MESSAGES_PATH);
        UpstreamRequest token = upstream.requests.get(0);
        assertThat(token.method()).isEqualTo("POST");
        assertThat(token.uri()).isEqualTo(URI.create(TOKEN_URL));
        assertThat(token.headers()).containsEntry("content-type", "application/json").doesNotContainKeys("authorization", "x-api-key");
        assertThat(token.timeout()).isEqualTo(TIMEOUT);
        assertThat(body(token)).isEqualTo(grant("rt-1"));
        UpstreamRequest messages = upstream.requests.get(1);
        assertThat(messages.headers()).containsEntry("authorization", "Bearer at-2").containsEntry("anthropic-beta", "oauth-2025-04-20");
        assertThat(updates.updates).containsExactly(new Update("c9", "at-2", "rt-2", NOW_MS + 28_800_000L));
    }

    @Test
    void aTokenIsRefreshedWhenItExpiresWithinTheSkew_andNotBefore() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesAnswerOk();
        executor().chat(call(oauth("at-1", "rt-1", NOW_MS + 60_001)));
        assertThat(upstream.to(TOKEN_PATH)).as("61 s left, skew 60 s").isEmpty();
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-1");

        executor().chat(call(oauth("at-1", "rt-1", NOW_MS + 60_000)));
        assertThat(upstream.to(TOKEN_PATH)).as("exactly the skew left").hasSize(1);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2");
    }

    @Test
    void theSkewIsConfigurableAndTheClockIsTheHostClock() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesAnswerOk();
        ProviderExecutor executor = executor(Map.of("oauthTokenUrl", TOKEN_URL, "oauthRefreshSkewMs", "0"), updates);
        UpstreamTarget target = oauth("at-1", "rt-1", NOW_MS + 1);
        executor.chat(call(target));
        assertThat(upstream.to(TOKEN_PATH)).isEmpty();
        clock.advance(1);
        executor.chat(call(target));
        assertThat(upstream.to(TOKEN_PATH)).hasSize(1);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2");
        assertThat(updates.updates).containsExactly(new Update("c9", "at-2", "rt-2", NOW_MS + 1 + 3_600_000L));
    }

    @Test
    void theDefaultsAreAnthropicsTokenEndpointAndClaudeCodesClientId_andBadSettingsFallBackToThem() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesAnswerOk();
        executor(Map.of(), updates).chat(call(oauth("at-1", "rt-1", NOW_MS + 59_000)));
        assertThat(upstream.to(TOKEN_PATH)).hasSize(1);
        assertThat(upstream.to(TOKEN_PATH).get(0).uri()).isEqualTo(URI.create("https://console.anthropic.com/v1/oauth/token"));
        assertThat(body(upstream.to(TOKEN_PATH).get(0))).isEqualTo(grant("rt-1"));

        upstream.requests.clear();
        executor(Map.of("oauthTokenUrl", "not a url", "oauthRefreshSkewMs", "-5", "oauthClientId", " "), updates)
                .chat(call(oauth("at-1", "rt-1", NOW_MS + 59_000)));
        assertThat(upstream.to(TOKEN_PATH)).as("default skew of 60 s applies").hasSize(1);
        assertThat(upstream.to(TOKEN_PATH).get(0).uri()).isEqualTo(URI.create(OAuthRefresher.DEFAULT_TOKEN_URL));
        assertThat(body(upstream.to(TOKEN_PATH).get(0))).isEqualTo(grant("rt-1"));

        upstream.requests.clear();
        executor(Map.of("oauthTokenUrl", TOKEN_URL, "oauthClientId", "my-client"), updates).chat(call(oauth("at-1", "rt-1", NOW_MS)));
        assertThat(Json.parse(body(upstream.to(TOKEN_PATH).get(0))))
                .isEqualTo(Map.of("grant_type", "refresh_token", "refresh_token", "rt-1", "client_id", "my-client"));
    }

    @Test
    void aConnectionWithOnlyARefreshTokenIsRefreshedBeforeSending() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesAnswerOk();
        assertThat(executor().chat(call(oauth(null, "rt-1", null)))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(paths(upstream.requests)).isEqualTo(TOKEN_PATH + "," + MESSAGES_PATH);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2");
    }

    // ------------------------------------------------------------------ after a 401

    @Test
    void a401TriggersOneRefreshAndTheCallIsSentOnceMoreWithTheNewToken() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        List<FakeUpstream.FakeResponse> refusals = Collections.synchronizedList(new ArrayList<>());
        upstream.on(MESSAGES_PATH, r -> {
            if ("Bearer at-1".equals(r.headers().get("authorization"))) {
                var refusal = json(401, UNAUTHORIZED);
                refusals.add(refusal);
                return refusal;
            }
            return json(200, ANSWER);
        });

        ChatOutcome outcome = executor().chat(call(oauth("at-1", "rt-1", null)));

        assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(paths(upstream.requests)).isEqualTo(MESSAGES_PATH + "," + TOKEN_PATH + "," + MESSAGES_PATH);
        assertThat(upstream.requests.get(0).headers()).containsEntry("authorization", "Bearer at-1");
        assertThat(body(upstream.requests.get(1))).isEqualTo(grant("rt-1"));
        assertThat(upstream.requests.get(2).headers()).containsEntry("authorization", "Bearer at-2");
        assertThat(body(upstream.requests.get(2))).isEqualTo(body(upstream.requests.get(0)));
        assertThat(refusals).hasSize(1).allSatisfy(r -> assertThat(r.closed).isTrue());
        assertThat(updates.updates).containsExactly(new Update("c9", "at-2", "rt-2", NOW_MS + 3_600_000L));
    }

    @Test
    void aStreamingCallRefusedWith401IsRetriedWithTheNewTokenToo() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        upstream.on(MESSAGES_PATH, r -> "Bearer at-1".equals(r.headers().get("authorization"))
                ? json(401, UNAUTHORIZED)
                : new FakeUpstream.FakeResponse(200, Map.of("content-type", List.of("text/event-stream")), Golden.read("stream/text.sse")));
        ChatCall streamed = new ChatCall(new ChatRequest("claude-sonnet-4-5", List.of(ChatMessage.text(Role.USER, "Hi")), List.of(), null,
                true, null, null, null, List.of(), Map.of()), oauth("at-1", "rt-1", null), "req-2", TIMEOUT, Map.of());

        ChatOutcome outcome = executor().chat(streamed);

        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        ((ChatOutcome.Streaming) outcome).chunks().close();
        assertThat(paths(upstream.requests)).isEqualTo(MESSAGES_PATH + "," + TOKEN_PATH + "," + MESSAGES_PATH);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2").containsEntry("accept", "text/event-stream");
    }

    @Test
    void a401AfterASuccessfulRefreshPassesThrough_noSecondRefreshNoRetryLoop() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        upstream.on(MESSAGES_PATH, r -> json(401, UNAUTHORIZED));

        UpstreamError afterRetry = error(executor().chat(call(oauth("at-1", "rt-1", null))));
        assertThat(paths(upstream.requests)).isEqualTo(MESSAGES_PATH + "," + TOKEN_PATH + "," + MESSAGES_PATH);
        assertThat(afterRetry.status()).isEqualTo(401);
        assertThat(afterRetry.errorCode()).isEqualTo("authentication_error");

        upstream.requests.clear();
        UpstreamError afterProactive = error(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1))));
        assertThat(paths(upstream.requests)).as("refreshed before sending: the 401 is not refreshed again")
                .isEqualTo(TOKEN_PATH + "," + MESSAGES_PATH);
        assertThat(afterProactive.errorCode()).isEqualTo("authentication_error");
    }

    // ------------------------------------------------------------------ refresh failures

    @Test
    void aFailedRefreshAfterA401EndsTheCallAsA401WithCodeExpired_CC6() {
        Map<String, List<String>> headers = Map.of("content-type", List.of("application/json"), "request-id", List.of("req_401"));
        upstream.on(MESSAGES_PATH, r -> new FakeUpstream.FakeResponse(401, headers, UNAUTHORIZED));
        tokenEndpointAnswers(400, "{\"error\":\"invalid_grant\",\"error_description\":\"Refresh token rt-1 not found or invalid\"}");

        UpstreamError error = error(executor().chat(call(oauth("at-1", "rt-1", null))));

        assertThat(paths(upstream.requests)).as("no retry after a failed refresh").isEqualTo(MESSAGES_PATH + "," + TOKEN_PATH);
        assertThat(error.status()).isEqualTo(401);
        assertThat(error.head().headers()).containsAllEntriesOf(headers);
        assertThat(error.body()).isEqualTo(UNAUTHORIZED);
        assertThat(error.errorCode()).isEqualTo("expired");
        assertThat(error.errorType()).isEqualTo("authentication_error");
        assertThat(error.message()).startsWith("OAuth token expired and refresh failed: token endpoint answered HTTP 400 (invalid_grant: ");
        assertThat(error.message() + error.describe()).doesNotContain("rt-1").doesNotContain("at-1");
        assertThat(updates.updates).isEmpty();

        upstream.requests.clear();
        executor().chat(call(oauth("at-1", "rt-1", null)));
        assertThat(paths(upstream.requests)).as("a later call tries again").isEqualTo(MESSAGES_PATH + "," + TOKEN_PATH);
    }

    @Test
    void aFailedRefreshBeforeSendingIsExpiredWithoutCallingTheMessagesApi() {
        tokenEndpointAnswers(400, "{\"error\":\"invalid_grant\",\"error_description\":\"Invalid refresh token\"}");
        messagesAnswerOk();

        UpstreamError error = error(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1))));

        assertThat(paths(upstream.requests)).isEqualTo(TOKEN_PATH);
        assertThat(error.status()).isEqualTo(401);
        assertThat(error.errorCode()).isEqualTo("expired");
        assertThat(error.errorType()).isEqualTo("authentication_error");
        assertThat(error.message()).isEqualTo("OAuth token expired and refresh failed: token endpoint answered HTTP 400 "
                + "(invalid_grant: Invalid refresh token)");
        assertThat(Json.parse(error.body())).as("an Anthropic error envelope").isEqualTo(Map.of("type", "error",
                "error", Map.of("type", "authentication_error", "message", error.message())));
    }

    @Test
    void anUnreachableTokenEndpointOrAnAnswerWithoutAccessTokenIsAFailedRefreshToo() {
        messagesAnswerOk();
        upstream.on(TOKEN_PATH, r -> {
            throw new ConnectException("Connection refused");
        });
        UpstreamError unreachable = error(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1))));
        assertThat(unreachable.errorCode()).isEqualTo("expired");
        assertThat(unreachable.message()).startsWith("OAuth token expired and refresh failed: token endpoint unreachable: ")
                .contains("Connection refused");

        tokenEndpointAnswers(200, "{\"token_type\":\"Bearer\"}");
        UpstreamError noToken = error(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1))));
        assertThat(noToken.errorCode()).isEqualTo("expired");
        assertThat(noToken.message()).endsWith("without an access_token");

        tokenEndpointAnswers(200, "<html>login</html>");
        assertThat(error(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1)))).errorCode()).isEqualTo("expired");
        assertThat(upstream.to(MESSAGES_PATH)).isEmpty();
        assertThat(updates.updates).isEmpty();
    }

    // ------------------------------------------------------------------ when no refresh happens

    @Test
    void withoutARefreshTokenThe401PassesThroughAsBefore() {
        messagesRefuse("at-1");
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));

        UpstreamError error = error(executor().chat(call(oauth("at-1", null, NOW_MS - 1))));

        assertThat(paths(upstream.requests)).isEqualTo(MESSAGES_PATH);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-1");
        assertThat(error.status()).isEqualTo(401);
        assertThat(error.errorCode()).isEqualTo("authentication_error");
        assertThat(error.body()).isEqualTo(UNAUTHORIZED);
        assertThat(updates.updates).isEmpty();
    }

    @Test
    void apiKeyConnectionsAreNeverRefreshed() {
        upstream.on(MESSAGES_PATH, r -> json(401, UNAUTHORIZED));
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        UpstreamTarget apiKey = new UpstreamTarget("c1", "claude", ProviderClass.APIKEY, BASE,
                new Credentials("sk-ant-api03-secret", "at-1", "rt-1", NOW_MS - 1), Map.of());

        UpstreamError error = error(executor().chat(call(apiKey)));

        assertThat(paths(upstream.requests)).isEqualTo(MESSAGES_PATH);
        assertThat(upstream.last().headers()).containsEntry("x-api-key", "sk-ant-api03-secret").doesNotContainKey("authorization");
        assertThat(error.errorCode()).isEqualTo("authentication_error");
        assertThat(updates.updates).isEmpty();
    }

    // ------------------------------------------------------------------ tokens across calls

    @Test
    void aTokenAnswerWithoutRefreshTokenKeepsTheOldOne() {
        tokenEndpointAnswers(200, tokens("at-2", null, 3_600));
        messagesAnswerOk();
        ProviderExecutor executor = executor();
        UpstreamTarget stale = oauth("at-1", "rt-1", NOW_MS - 1);

        executor.chat(call(stale));
        assertThat(updates.updates).containsExactly(new Update("c9", "at-2", null, NOW_MS + 3_600_000L));

        // an hour later the renewed token expires; the stale target still names at-1, but rt-1 is the one to use
        clock.advance(3_600_000L);
        tokenEndpointAnswers(200, tokens("at-3", null, 3_600));
        executor.chat(call(stale));
        assertThat(upstream.to(TOKEN_PATH)).extracting(ClaudeOAuthRefreshTest::body).containsExactly(grant("rt-1"), grant("rt-1"));
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-3");
    }

    @Test
    void aCallWithTokensThatWereAlreadyRenewedUsesTheRenewedOnes_evenWhenTheHostCannotStoreThem() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesRefuse("at-1");
        ProviderExecutor executor = executor(Map.of("oauthTokenUrl", TOKEN_URL), null);
        UpstreamTarget stale = oauth("at-1", "rt-1", NOW_MS - 1);

        assertThat(executor.chat(call(stale))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2");
        // the target was read before the renewal (or the host keeps no renewed tokens): no second token request
        assertThat(executor.chat(call(stale))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(executor.chat(call(oauth("at-1", "rt-1", null)))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(paths(upstream.requests)).isEqualTo(String.join(",", TOKEN_PATH, MESSAGES_PATH, MESSAGES_PATH, MESSAGES_PATH));
        assertThat(upstream.to(MESSAGES_PATH)).allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer at-2"));

        // once expired, the rotated refresh token is the one sent
        clock.advance(3_600_000L);
        tokenEndpointAnswers(200, tokens("at-3", "rt-3", 3_600));
        executor.chat(call(stale));
        assertThat(upstream.to(TOKEN_PATH)).extracting(ClaudeOAuthRefreshTest::body).containsExactly(grant("rt-1"), grant("rt-2"));
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-3");
    }

    @Test
    void credentialsChangedByTheOperatorAreUsedAsGiven() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesAnswerOk();
        ProviderExecutor executor = executor();
        executor.chat(call(oauth("at-1", "rt-1", NOW_MS - 1)));
        executor.chat(call(oauth("at-new", "rt-new", NOW_MS + 3_600_000L)));
        assertThat(upstream.to(TOKEN_PATH)).hasSize(1);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-new");
    }

    @Test
    void aHostThatFailsToStoreTheTokensDoesNotFailTheCall() {
        tokenEndpointAnswers(200, tokens("at-2", "rt-2", 3_600));
        messagesAnswerOk();
        updates.failure = new IllegalStateException("database is locked");
        assertThat(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1)))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2");

        updates.failure = null;
        updates.stored = false;
        assertThat(executor().chat(call(oauth("at-1", "rt-1", NOW_MS - 1)))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(upstream.last().headers()).containsEntry("authorization", "Bearer at-2");
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void concurrentCallsWithAnExpiredTokenSendExactlyOneTokenRequest() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger tokenRequests = new AtomicInteger();
        upstream.on(TOKEN_PATH, r -> {
            tokenRequests.incrementAndGet();
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return json(200, tokens("at-2", "rt-2", 3_600));
        });
        messagesAnswerOk();
        ProviderExecutor executor = executor();
        UpstreamTarget target = oauth("at-1", "rt-1", NOW_MS - 1);
        AtomicReference<ChatOutcome> first = new AtomicReference<>();
        AtomicReference<ChatOutcome> second = new AtomicReference<>();

        Thread a = new Thread(() -> first.set(executor.chat(call(target))));
        a.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        Thread b = new Thread(() -> second.set(executor.chat(call(target))));
        b.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> b.getState() == Thread.State.WAITING || b.getState() == Thread.State.TERMINATED);
        assertThat(b.getState()).as("the second call waits for the first one's refresh").isEqualTo(Thread.State.WAITING);
        release.countDown();
        a.join(10_000);
        b.join(10_000);

        assertThat(tokenRequests).hasValue(1);
        assertThat(first.get()).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(second.get()).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(upstream.to(MESSAGES_PATH)).hasSize(2)
                .allSatisfy(r -> assertThat(r.headers()).containsEntry("authorization", "Bearer at-2"));
        assertThat(updates.updates).hasSize(1);
    }

    @Test
    void concurrentCallsRefusedWith401SendExactlyOneTokenRequest() throws Exception {
        CyclicBarrier bothRefused = new CyclicBarrier(2);
        upstream.on(MESSAGES_PATH, r -> {
            if ("Bearer at-1".equals(r.headers().get("authorization"))) {
                try {
                    bothRefused.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return json(401, UNAUTHORIZED);
            }
            return json(200, ANSWER);
        });
        AtomicInteger tokenRequests = new AtomicInteger();
        List<Thread> callers = new java.util.concurrent.CopyOnWriteArrayList<>();
        upstream.on(TOKEN_PATH, r -> {
            tokenRequests.incrementAndGet();
            // the fake answers on the caller's thread: hold this refresh until the other caller is parked on it
            Thread refreshing = Thread.currentThread();
            await().atMost(Duration.ofSeconds(10)).until(() -> callers.stream().filter(t -> t != refreshing)
                    .allMatch(t -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TERMINATED));
            return json(200, tokens("at-2", "rt-2", 3_600));
        });
        ProviderExecutor executor = executor();
        UpstreamTarget target = oauth("at-1", "rt-1", null);
        Map<String, ChatOutcome> outcomes = Collections.synchronizedMap(new HashMap<>());

        Thread a = new Thread(() -> outcomes.put("a", executor.chat(call(target))));
        Thread b = new Thread(() -> outcomes.put("b", executor.chat(call(target))));
        callers.add(a);
        callers.add(b);
        a.start();
        b.start();
        a.join(10_000);
        b.join(10_000);

        assertThat(tokenRequests).hasValue(1);
        assertThat(outcomes.values()).hasSize(2).allSatisfy(o -> assertThat(o).isInstanceOf(ChatOutcome.Completed.class));
        assertThat(upstream.to(MESSAGES_PATH)).extracting(r -> r.headers().get("authorization"))
                .containsExactlyInAnyOrder("Bearer at-1", "Bearer at-1", "Bearer at-2", "Bearer at-2");
        assertThat(updates.updates).hasSize(1);
    }

    @Test
    void concurrentCallsShareAFailedRefreshInsteadOfRepeatingIt() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger tokenRequests = new AtomicInteger();
        upstream.on(TOKEN_PATH, r -> {
            tokenRequests.incrementAndGet();
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return json(400, "{\"error\":\"invalid_grant\"}");
        });
        messagesAnswerOk();
        ProviderExecutor executor = executor();
        UpstreamTarget target = oauth("at-1", "rt-1", NOW_MS - 1);
        AtomicReference<ChatOutcome> first = new AtomicReference<>();
        AtomicReference<ChatOutcome> second = new AtomicReference<>();

        Thread a = new Thread(() -> first.set(executor.chat(call(target))));
        a.start();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        Thread b = new Thread(() -> second.set(executor.chat(call(target))));
        b.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> b.getState() == Thread.State.WAITING);
        release.countDown();
        a.join(10_000);
        b.join(10_000);

        assertThat(tokenRequests).hasValue(1);
        assertThat(error(first.get()).errorCode()).isEqualTo("expired");
        assertThat(error(second.get()).errorCode()).isEqualTo("expired");
        assertThat(error(second.get()).message()).isEqualTo(error(first.get()).message());
        assertThat(upstream.to(MESSAGES_PATH)).isEmpty();
    }

    @Test
    void tokensNeverShowInToString() {
        var t = new OAuthRefresher.Tokens("at-secret", "rt-secret", 5L);
        assertThat(t.toString()).doesNotContain("secret").contains("expiresAt=5");
    }
}
