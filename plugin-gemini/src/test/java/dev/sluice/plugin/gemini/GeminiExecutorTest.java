package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import static dev.sluice.plugin.gemini.Fakes.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamRequest;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The executor against a fake upstream client: URLs, headers, outcomes. */
class GeminiExecutorTest {

    private static final String KEY = "AIzaSyTEST-secret-key";
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.ofEpochSecond(1_750_000_000L));

    private static ChatCall call(boolean stream, Map<String, Object> providerData) {
        return call("gemini-2.5-flash", stream, providerData);
    }

    private static ChatCall call(String model, boolean stream, Map<String, Object> providerData) {
        ChatRequest request = new ChatRequest(model, List.of(ChatMessage.text(Role.USER, "Hello")), List.of(),
                null, stream, 100, null, null, List.of(), Map.of());
        UpstreamTarget target = new UpstreamTarget("conn-1", "gemini", ProviderClass.APIKEY, "http://127.0.0.1:9999",
                new Credentials(KEY, null, null, null), providerData);
        return new ChatCall(request, target, "req-1", Duration.ofSeconds(30),
                Map.of("anthropic-beta", "tools-2024-04-04", "anthropic-version", "2023-06-01"));
    }

    private static ChatOutcome run(Fakes.FakeHttp http, ChatCall call) {
        return new GeminiExecutor(http, CLOCK, new Fakes.CountingIds(), System.getLogger("test")).chat(call);
    }

    @Test
    void nonStreamingCallsGenerateContentWithTheKeyInAHeaderOnly() {
        Fakes.FakeHttp http = new Fakes.FakeHttp(Fakes.FakeResponse.of(200, golden("response-text.json")));
        ChatOutcome outcome = run(http, call(false, Map.of()));
        UpstreamRequest req = http.only();
        assertThat(req.method()).isEqualTo("POST");
        assertThat(req.uri()).isEqualTo(URI.create("http://127.0.0.1:9999/v1beta/models/gemini-2.5-flash:generateContent"));
        assertThat(req.uri().toString()).doesNotContain(KEY).doesNotContain("key=");
        assertThat(req.headers()).containsOnly(
                Map.entry("Content-Type", "application/json"),
                Map.entry("Accept", "application/json"),
                Map.entry("User-Agent", "Sluice/0.1"),
                Map.entry("x-goog-api-key", KEY));
        assertThat(req.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(Json.parse(new String(req.body(), StandardCharsets.UTF_8))).isEqualTo(Json.parse("""
                {"contents":[{"role":"user","parts":[{"text":"Hello"}]}],"generationConfig":{"maxOutputTokens":100}}"""));
        assertThat(req.toString()).doesNotContain(KEY);

        assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);
        ChatOutcome.Completed done = (ChatOutcome.Completed) outcome;
        assertThat(done.response().choices().get(0).message().textContent()).isEqualTo("The capital of France is Paris.");
        assertThat(done.response().created()).isEqualTo(1_750_000_000L);
        assertThat(done.head().status()).isEqualTo(200);
    }

    @Test
    void streamingCallsStreamGenerateContentWithAltSse() throws IOException {
        Fakes.FakeResponse response = Fakes.FakeResponse.sse(List.of(golden("stream-text.sse")));
        Fakes.FakeHttp http = new Fakes.FakeHttp(response);
        ChatOutcome outcome = run(http, call(true, Map.of()));
        UpstreamRequest req = http.only();
        assertThat(req.uri()).isEqualTo(
                URI.create("http://127.0.0.1:9999/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"));
        assertThat(req.uri().getQuery()).isEqualTo("alt=sse");
        assertThat(req.headers()).containsEntry("Accept", "text/event-stream").containsEntry("x-goog-api-key", KEY);
        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        assertThat(response.segmentedBody().segmentsDelivered()).as("nothing read before the runtime asks").isZero();
        try (var chunks = ((ChatOutcome.Streaming) outcome).chunks()) {
            StreamChunk first = chunks.next();
            assertThat(first.choices().get(0).contentDelta()).isEqualTo("The");
            assertThat(first.created()).isEqualTo(1_750_000_000L);
            while (chunks.next() != null) {
                // read to the end
            }
        }
        assertThat(response.eofBeforeClose()).isTrue();
    }

    @Test
    void clientHeadersAreNeverForwarded_SEC5() {
        Fakes.FakeHttp http = new Fakes.FakeHttp(Fakes.FakeResponse.of(200, golden("response-text.json")));
        run(http, call(false, Map.of()));
        assertThat(http.only().headers().keySet()).map(String::toLowerCase)
                .doesNotContain("anthropic-beta", "anthropic-version", "authorization", "x-request-id");
    }

    @Test
    void anOauthOnlyConnectionSendsABearerToken() {
        assertThat(GeminiExecutor.headers(new Credentials(null, "ya29.token", null, null), false))
                .containsEntry("Authorization", "Bearer ya29.token").doesNotContainKey("x-goog-api-key");
        assertThat(GeminiExecutor.headers(Credentials.NONE, false)).doesNotContainKeys("Authorization", "x-goog-api-key");
    }

    @Test
    void theModelIsOneSafelyEncodedPathSegment() {
        assertThat(GeminiExecutor.endpoint("https://generativelanguage.googleapis.com", "gemini-2.5-pro", false))
                .hasToString("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent");
        assertThat(GeminiExecutor.endpoint("https://generativelanguage.googleapis.com/", "models/gemini-2.5-pro", false))
                .hasToString("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent");
        assertThat(GeminiExecutor.endpoint("http://h", "../../v1/files?x=1#y z:stream", false))
                .hasToString("http://h/v1beta/models/..%2F..%2Fv1%2Ffiles%3Fx%3D1%23y%20z%3Astream:generateContent");
        assertThat(GeminiExecutor.endpoint("http://h", "..", true))
                .hasToString("http://h/v1beta/models/%2E%2E:streamGenerateContent?alt=sse");
        assertThat(GeminiExecutor.endpoint("http://h", "gémini", false)).hasToString("http://h/v1beta/models/g%C3%A9mini:generateContent");
    }

    @Test
    void aModelIdThatCouldLeaveItsPathSegmentIsRefusedBeforeAnythingIsSent_SEC5() {
        for (String model : List.of("../../x", "x:evil", "a/b", "..", "models/../x", "x?alt=1", "x#f", "x y", "gémini", "x%2F..", "m".repeat(129))) {
            Fakes.FakeHttp http = new Fakes.FakeHttp(Fakes.FakeResponse.of(200, golden("response-text.json")));
            ChatOutcome outcome = run(http, call(model, false, Map.of()));
            assertThat(http.requests).as(model).isEmpty();
            assertThat(outcome).as(model).isInstanceOf(ChatOutcome.Failed.class);
            UpstreamError e = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.errorType()).isEqualTo("INVALID_ARGUMENT");
            assertThat(e.message()).startsWith("'model' '" + model.substring(0, Math.min(model.length(), 80)))
                    .contains("is not a Gemini model id");
        }
        for (String model : List.of("gemini-2.5-flash", "models/gemini-2.0-flash-001", "gemma-3-27b-it", "m".repeat(128))) {
            Fakes.FakeHttp http = new Fakes.FakeHttp(Fakes.FakeResponse.of(200, golden("response-text.json")));
            assertThat(run(http, call(model, false, Map.of()))).as(model).isInstanceOf(ChatOutcome.Completed.class);
        }
    }

    @Test
    void aBaseUrlWithAVersionPathKeepsIt() {
        assertThat(GeminiExecutor.endpoint("http://proxy/gemini/v1beta", "m", false)).hasToString("http://proxy/gemini/v1beta/models/m:generateContent");
        assertThat(GeminiExecutor.endpoint("http://proxy/v1/", "m", false)).hasToString("http://proxy/v1/models/m:generateContent");
        assertThat(GeminiExecutor.endpoint("http://proxy/gemini", "m", false)).hasToString("http://proxy/gemini/v1beta/models/m:generateContent");
    }

    @Test
    void includeThoughtsIsAConnectionSetting() {
        Fakes.FakeHttp http = new Fakes.FakeHttp(Fakes.FakeResponse.of(200, golden("response-thoughts.json")));
        ChatOutcome outcome = run(http, call(false, Map.of("includeThoughts", true)));
        Object body = Json.parse(new String(http.only().body(), StandardCharsets.UTF_8));
        assertThat(Json.object(Json.object(body, "generationConfig"), "thinkingConfig")).isEqualTo(Map.of("includeThoughts", true));
        assertThat(((ChatOutcome.Completed) outcome).response().choices().get(0).message().reasoningContent()).isNotBlank();
        Fakes.FakeHttp off = new Fakes.FakeHttp(Fakes.FakeResponse.of(200, golden("response-text.json")));
        run(off, call(false, Map.of("includeThoughts", "false")));
        assertThat(new String(off.only().body(), StandardCharsets.UTF_8)).doesNotContain("thinkingConfig");
    }

    @Test
    void a429WithRetryInfoFailsWithTheGoogleRetryHint_RQ4() {
        Fakes.FakeResponse response = Fakes.FakeResponse.of(429, golden("error-429-retry-info.json"));
        ChatOutcome outcome = run(new Fakes.FakeHttp(response), call(false, Map.of()));
        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        UpstreamError e = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(e.status()).isEqualTo(429);
        assertThat(e.errorCode()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(e.retryHint()).isEqualTo(new RetryHint(86_399_000L, RetryHint.GOOGLE_RPC_RETRY_INFO));
        assertThat(e.body()).contains("QuotaFailure");
        assertThat(response.closed()).isTrue();
    }

    @Test
    void aStreaming400FailsBeforeAnyStreamIsReturned() {
        Fakes.FakeResponse response = Fakes.FakeResponse.of(400, golden("error-400-invalid-argument.json"));
        ChatOutcome outcome = run(new Fakes.FakeHttp(response), call(true, Map.of()));
        UpstreamError e = (UpstreamError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(e.errorCode()).isEqualTo("INVALID_ARGUMENT");
        assertThat(response.closed()).isTrue();
    }

    @Test
    void aTransportFailureIsATransportError() {
        ChatOutcome outcome = run(new Fakes.FakeHttp(new ConnectException("Connection refused")), call(false, Map.of()));
        assertThat(((ChatOutcome.Failed) outcome).failure())
                .isEqualTo(new TransportError(TransportErrorKind.CONNECT_FAILED, "ConnectException: Connection refused"));
    }

    @Test
    void redirectsAndInformationalAnswersAreProtocolFailures() {
        Fakes.FakeResponse redirect = new Fakes.FakeResponse(302, Map.of("Location", List.of("https://accounts.google.com/")),
                new Fakes.SegmentedBody(List.of("")));
        ChatOutcome outcome = run(new Fakes.FakeHttp(redirect), call(false, Map.of()));
        TransportError e = (TransportError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(e.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
        assertThat(e.message()).contains("302").contains("accounts.google.com");
        assertThat(redirect.closed()).isTrue();
        Fakes.FakeResponse informational = Fakes.FakeResponse.of(103, "");
        TransportError early = (TransportError) ((ChatOutcome.Failed) run(new Fakes.FakeHttp(informational), call(true, Map.of())))
                .failure();
        assertThat(early.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
    }

    @Test
    void aSuccessThatIsNotAGenerateContentResponseIsAProtocolFailure() {
        for (String body : List.of("<html>hello</html>", "{\"foo\":1}", "{\"error\":{\"code\":500,\"status\":\"INTERNAL\"}}")) {
            Fakes.FakeResponse response = Fakes.FakeResponse.of(200, body);
            ChatOutcome outcome = run(new Fakes.FakeHttp(response), call(false, Map.of()));
            TransportError e = (TransportError) ((ChatOutcome.Failed) outcome).failure();
            assertThat(e.kind()).as(body).isEqualTo(TransportErrorKind.PROTOCOL);
            assertThat(e.message()).contains("not a Gemini GenerateContentResponse");
            assertThat(response.closed()).isTrue();
        }
    }

    @Test
    void aBodyCutOffWhileReadingIsATransportError() {
        Fakes.FakeResponse response = new Fakes.FakeResponse(200, Map.of(),
                new Fakes.SegmentedBody(List.of("{\"candidates\":")).failingAtEnd(new IOException("Connection reset by peer")));
        ChatOutcome outcome = run(new Fakes.FakeHttp(response), call(false, Map.of()));
        TransportError e = (TransportError) ((ChatOutcome.Failed) outcome).failure();
        assertThat(e.kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET);
        assertThat(response.closed()).isTrue();
    }

    @Test
    void aCompleteAnswerIsReadToItsEndBeforeTheResponseIsClosed() {
        Fakes.FakeResponse response = new Fakes.FakeResponse(200, Map.of(),
                new Fakes.SegmentedBody(List.of(golden("response-text.json"), "\n")));
        run(new Fakes.FakeHttp(response), call(false, Map.of()));
        assertThat(response.eofBeforeClose()).isTrue();
    }
}
