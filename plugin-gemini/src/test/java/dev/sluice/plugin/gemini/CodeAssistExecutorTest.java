package dev.sluice.plugin.gemini;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.plugin.TestingHostContext;
import dev.sluice.toolkit.json.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36: an {@code oauth} gemini connection (a Gemini CLI login) is served by the Code Assist
 * backend, a real HTTP server on loopback here: the project found once with
 * {@code loadCodeAssist} / {@code onboardUser} and stored, the request wrapped, the answer unwrapped.
 */
class CodeAssistExecutorTest {

    private static final String TOKEN = "ya29.test-access-token";
    private static final String ANSWER = """
            {"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello from Code Assist"}]},
             "finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":3,"totalTokenCount":7},
             "modelVersion":"gemini-2.5-pro"},"traceId":"trace-1"}""";

    private MockUpstream backend;
    private final List<String> learned = new ArrayList<>();
    private ProviderExecutor executor;

    @BeforeEach
    void start() {
        backend = MockUpstream.start();
        CredentialUpdates updates = new CredentialUpdates() {
            @Override
            public boolean oauthRenewed(String connectionId, String accessToken, String refreshToken, Long expiresAt) {
                return true;
            }

            @Override
            public boolean providerSettingLearned(String connectionId, String key, String value) {
                learned.add(connectionId + ":" + key + "=" + value);
                return true;
            }
        };
        TestingHostContext host = TestingHostContext.builder("gemini").setting("upstreamBaseUrl", backend.baseUrl())
                .credentialUpdates(updates).build();
        executor = new GeminiExecutorFactory().create(host);
    }

    @AfterEach
    void stop() {
        backend.close();
    }

    /** An oauth connection on the API-key host (as {@code bin/sluice import} makes it): the plugin's endpoint is used. */
    private static ChatCall call(boolean stream, Map<String, Object> providerData) {
        ChatRequest request = new ChatRequest("gemini-2.5-pro", List.of(ChatMessage.text(Role.USER, "Hello")), List.of(), null, stream,
                100, null, null, List.of(), Map.of());
        UpstreamTarget target = new UpstreamTarget("conn-1", "gemini", ProviderClass.OAUTH, GeminiPlugin.DEFAULT_BASE_URL,
                new Credentials(null, TOKEN, "1//refresh", null), providerData);
        return new ChatCall(request, target, "req-1", Duration.ofSeconds(10), Map.of());
    }

    private RecordedRequest take() throws InterruptedException {
        return backend.takeRequest(Duration.ofSeconds(5));
    }

    @Test
    void theFirstRequestFindsTheProjectWithLoadCodeAssistStoresItAndWrapsTheRequest() throws Exception {
        backend.enqueue(MockResponse.json(200, """
                {"currentTier":{"id":"standard-tier","name":"Gemini Code Assist"},"cloudaicompanionProject":"proj-123"}"""));
        backend.enqueue(MockResponse.json(200, ANSWER));

        ChatOutcome outcome = executor.chat(call(false, Map.of()));

        assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);
        ChatOutcome.Completed done = (ChatOutcome.Completed) outcome;
        assertThat(done.response().choices().get(0).message().textContent()).isEqualTo("Hello from Code Assist");
        assertThat(done.response().id()).isEqualTo("trace-1");
        assertThat(done.response().usage().promptTokens()).isEqualTo(4);
        RecordedRequest load = take();
        assertThat(load.method()).isEqualTo("POST");
        assertThat(load.path()).isEqualTo("/v1internal:loadCodeAssist");
        assertThat(load.header("authorization")).isEqualTo("Bearer " + TOKEN);
        assertThat(Json.parse(load.body())).isEqualTo(Json.parse("""
                {"metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}"""));
        RecordedRequest generate = take();
        assertThat(generate.path()).isEqualTo("/v1internal:generateContent");
        assertThat(generate.header("authorization")).isEqualTo("Bearer " + TOKEN);
        assertThat(generate.header("x-goog-api-key")).isNull();
        assertThat(Json.parse(generate.body())).isEqualTo(Json.parse("""
                {"model":"gemini-2.5-pro","project":"proj-123","user_prompt_id":"req-1",
                 "request":{"contents":[{"role":"user","parts":[{"text":"Hello"}]}],"generationConfig":{"maxOutputTokens":100}}}"""));
        assertThat(learned).containsExactly("conn-1:projectId=proj-123");

        backend.enqueue(MockResponse.json(200, ANSWER));
        assertThat(executor.chat(call(false, Map.of()))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(take().path()).as("the project is asked once per connection").isEqualTo("/v1internal:generateContent");
        assertThat(backend.requestCount()).isEqualTo(3);
    }

    @Test
    void aStreamGoesToStreamGenerateContentAndEachEventIsUnwrapped() throws Exception {
        backend.enqueue(MockResponse.sse(List.of(
                "{\"response\":{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]},\"index\":0}]},\"traceId\":\"t-2\"}",
                "{\"traceId\":\"t-2\",\"remainingCredits\":[]}",
                "{\"response\":{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"lo\"}]},\"finishReason\":\"STOP\","
                        + "\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":2,\"candidatesTokenCount\":2,\"totalTokenCount\":4}},"
                        + "\"traceId\":\"t-2\"}"), Duration.ZERO));

        ChatOutcome outcome = executor.chat(call(true, Map.of("projectId", "operator-project")));

        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        StringBuilder text = new StringBuilder();
        String finish = null;
        try (var chunks = ((ChatOutcome.Streaming) outcome).chunks()) {
            StreamChunk c;
            while ((c = chunks.next()) != null) {
                for (var choice : c.choices()) {
                    if (choice.contentDelta() != null) {
                        text.append(choice.contentDelta());
                    }
                    if (choice.finishReason() != null) {
                        finish = choice.finishReason();
                    }
                }
            }
        }
        assertThat(text).hasToString("Hello");
        assertThat(finish).isEqualTo("stop");
        RecordedRequest generate = take();
        assertThat(generate.path()).as("a project the operator set is used as it is").isEqualTo("/v1internal:streamGenerateContent?alt=sse");
        assertThat(generate.header("accept")).isEqualTo("text/event-stream");
        assertThat(Json.string(Json.parse(generate.body()), "project")).isEqualTo("operator-project");
        assertThat(backend.requestCount()).isEqualTo(1);
        assertThat(learned).isEmpty();
    }

    @Test
    void anAccountWithoutATierIsOnboardedToItsDefaultTier() throws Exception {
        backend.enqueue(MockResponse.json(200, """
                {"allowedTiers":[{"id":"legacy-tier"},{"id":"free-tier","isDefault":true}]}"""));
        backend.enqueue(MockResponse.json(200, """
                {"name":"operations/1","done":true,"response":{"cloudaicompanionProject":{"id":"managed-proj-9","name":"managed"}}}"""));
        backend.enqueue(MockResponse.json(200, ANSWER));

        assertThat(executor.chat(call(false, Map.of()))).isInstanceOf(ChatOutcome.Completed.class);

        assertThat(take().path()).isEqualTo("/v1internal:loadCodeAssist");
        RecordedRequest onboard = take();
        assertThat(onboard.path()).isEqualTo("/v1internal:onboardUser");
        assertThat(Json.parse(onboard.body())).isEqualTo(Json.parse("""
                {"tierId":"free-tier","metadata":{"ideType":"IDE_UNSPECIFIED","platform":"PLATFORM_UNSPECIFIED","pluginType":"GEMINI"}}"""));
        assertThat(Json.string(Json.parse(take().body()), "project")).isEqualTo("managed-proj-9");
        assertThat(learned).containsExactly("conn-1:projectId=managed-proj-9");
    }

    @Test
    void anOnboardingStillUnderWayIsARetryable503AndTheNextRequestAsksAgain() throws Exception {
        backend.enqueue(MockResponse.json(200, "{\"allowedTiers\":[{\"id\":\"free-tier\",\"isDefault\":true}]}"));
        backend.enqueue(MockResponse.json(200, "{\"name\":\"operations/2\",\"done\":false}"));

        ChatOutcome first = executor.chat(call(false, Map.of()));

        assertThat(first).isInstanceOf(ChatOutcome.Failed.class);
        UpstreamError error = (UpstreamError) ((ChatOutcome.Failed) first).failure();
        assertThat(error.head().status()).isEqualTo(503);
        assertThat(error.errorCode()).isEqualTo("code_assist_onboarding");
        assertThat(learned).isEmpty();

        backend.enqueue(MockResponse.json(200, "{\"currentTier\":{\"id\":\"free-tier\"},\"cloudaicompanionProject\":\"managed-proj-3\"}"));
        backend.enqueue(MockResponse.json(200, ANSWER));
        assertThat(executor.chat(call(false, Map.of()))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(backend.requestCount()).isEqualTo(4);
        assertThat(learned).containsExactly("conn-1:projectId=managed-proj-3");
    }

    @Test
    void anIneligibleAccountIsA403NamingGooglesReasonsAndSendsNoChat() throws Exception {
        backend.enqueue(MockResponse.json(200, """
                {"currentTier":{"id":"standard-tier"},"ineligibleTiers":[{"reasonCode":"UNSUPPORTED_LOCATION",
                 "reasonMessage":"Your current account is not eligible for Gemini Code Assist in your location"}]}"""));

        ChatOutcome outcome = executor.chat(call(false, Map.of()));

        UpstreamError error = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(error.head().status()).isEqualTo(403);
        assertThat(error.errorCode()).isEqualTo("code_assist_project_required");
        assertThat(error.message()).contains("not eligible for Gemini Code Assist in your location");
        assertThat(backend.requestCount()).isEqualTo(1);
    }

    @Test
    void aCodeAssistErrorIsReadAsGooglesErrorBody() throws IOException {
        backend.enqueue(MockResponse.json(429, """
                {"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}"""));

        ChatOutcome outcome = executor.chat(call(false, Map.of("projectId", "p")));

        UpstreamError error = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(error.head().status()).isEqualTo(429);
        assertThat(error.errorCode()).isEqualTo("RESOURCE_EXHAUSTED");
    }

    @Test
    void aRefusedProjectLookupIsTheAnswerOfTheRequestAndIsAskedAgainNextTime() throws Exception {
        backend.enqueue(MockResponse.json(401, """
                {"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"""));

        ChatOutcome outcome = executor.chat(call(false, Map.of()));

        UpstreamError error = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(error.head().status()).isEqualTo(401);
        assertThat(error.errorCode()).isEqualTo("UNAUTHENTICATED");
        assertThat(backend.requestCount()).isEqualTo(1);
        assertThat(learned).isEmpty();
        backend.enqueue(MockResponse.json(200, "{\"currentTier\":{\"id\":\"free-tier\"},\"cloudaicompanionProject\":\"p-2\"}"));
        backend.enqueue(MockResponse.json(200, ANSWER));
        assertThat(executor.chat(call(false, Map.of()))).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(learned).containsExactly("conn-1:projectId=p-2");
    }

    @Test
    void theCodeAssistEndpointOfAConnection() {
        assertThat(CodeAssist.baseUrl(GeminiPlugin.DEFAULT_BASE_URL + "/", CodeAssist.DEFAULT_BASE_URL))
                .isEqualTo("https://cloudcode-pa.googleapis.com");
        assertThat(CodeAssist.baseUrl("http://127.0.0.1:8080/v1internal", CodeAssist.DEFAULT_BASE_URL)).isEqualTo("http://127.0.0.1:8080");
        assertThat(CodeAssist.chatUri("https://cloudcode-pa.googleapis.com", true))
                .hasToString("https://cloudcode-pa.googleapis.com/v1internal:streamGenerateContent?alt=sse");
    }
}
