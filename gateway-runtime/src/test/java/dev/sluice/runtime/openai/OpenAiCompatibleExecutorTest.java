package dev.sluice.runtime.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.Credentials;
import dev.sluice.api.EmbeddingCall;
import dev.sluice.api.EmbeddingOutcome;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.SseEvents;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The built-in OpenAI-compatible executor against a real loopback mock, with no server of Sluice's
 * in between: the request it builds (path, headers built from scratch — SEC-5 —, body), and how
 * each kind of answer becomes an outcome (a completion, a stream, an error, a broken answer).
 */
class OpenAiCompatibleExecutorTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final MockUpstream upstream = MockUpstream.start();
    private final OpenAiCompatibleExecutor executor = OpenAiCompatibleExecutor.create(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), new OpenAiCodec());

    @AfterEach
    void stop() {
        upstream.close();
    }

    private UpstreamTarget target(String baseUrl, String apiKey) {
        return new UpstreamTarget("c1", "acme", ProviderClass.APIKEY, baseUrl, new Credentials(apiKey, null, null, null), Map.of());
    }

    private UpstreamTarget target() {
        return target(upstream.baseUrl() + "/v1/", "sk-connection");
    }

    private static ChatRequest request(boolean stream) {
        return ChatRequest.builder("m-1", List.of(ChatMessage.text(Role.USER, "hi"))).stream(stream).maxTokens(7).build();
    }

    private ChatCall call(boolean stream) {
        return ChatCall.builder(request(stream), target()).requestId("req-1").timeout(TIMEOUT)
                // a client's headers reach a plugin executor that asks for them; this executor forwards none
                .clientHeaders(Map.of("anthropic-beta", "tools-2024")).build();
    }

    private RecordedRequest sent() throws InterruptedException {
        RecordedRequest r = upstream.takeRequest(TIMEOUT);
        assertThat(r).as("the upstream got a request").isNotNull();
        return r;
    }

    /** The non-empty content deltas of a stream, read to its end (the role chunk carries an empty one). */
    private static List<String> contents(ChunkStream chunks) throws Exception {
        List<String> out = new ArrayList<>();
        try (chunks) {
            for (StreamChunk c; (c = chunks.next()) != null; ) {
                c.choices().forEach(ch -> {
                    if (ch.contentDelta() != null && !ch.contentDelta().isEmpty()) {
                        out.add(ch.contentDelta());
                    }
                });
            }
        }
        return out;
    }

    @Test
    void aChatIsPostedToTheChatPathWithHeadersBuiltFromScratch_SEC5() throws Exception {
        upstream.setDefault(MockResponse.completion("hello"));
        assertThat(executor.chat(call(false))).isInstanceOf(ChatOutcome.Completed.class);
        RecordedRequest r = sent();
        assertThat(r.method()).isEqualTo("POST");
        assertThat(r.path()).as("one slash between the base URL and the path").isEqualTo("/v1/chat/completions");
        assertThat(r.header("Authorization")).isEqualTo("Bearer sk-connection");
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.header("Accept")).isEqualTo("application/json");
        assertThat(r.header("anthropic-beta")).as("client headers are not forwarded").isNull();
        assertThat(r.header("User-Agent")).as("no User-Agent of Sluice's own (issue 32)").isNull();
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("model").asText()).isEqualTo("m-1");
        assertThat(body.path("messages").get(0).path("role").asText()).isEqualTo("user");
        assertThat(body.path("messages").get(0).path("content").asText()).isEqualTo("hi");
        assertThat(body.path("max_tokens").asInt()).isEqualTo(7);
        assertThat(body.path("stream").asBoolean(false)).as("no stream asked for").isFalse();
    }

    @Test
    void aConnectionWithoutCredentialsSendsNoAuthorization() throws Exception {
        upstream.setDefault(MockResponse.completion("hello"));
        ChatCall call = ChatCall.builder(request(false), target(upstream.baseUrl() + "/v1", null)).requestId("r").timeout(TIMEOUT).build();
        assertThat(executor.chat(call)).isInstanceOf(ChatOutcome.Completed.class);
        assertThat(sent().header("Authorization")).isNull();
    }

    @Test
    void fixedHeadersAreAddedButCredentialsComeOnlyFromTheConnection_SEC5() throws Exception {
        upstream.setDefault(MockResponse.completion("hello"));
        OpenAiCompatibleExecutor withHeaders = executor.withHeaders(Map.of("X-Client-Name", "acme-cli", "Authorization", "Bearer fixed"));
        assertThat(withHeaders.chat(call(false))).isInstanceOf(ChatOutcome.Completed.class);
        RecordedRequest r = sent();
        assertThat(r.header("X-Client-Name")).isEqualTo("acme-cli");
        assertThat(r.header("Authorization")).isEqualTo("Bearer sk-connection");
    }

    @Test
    void aCompletionIsReadAndItsBytesKeptAsTheUpstreamSentThem() throws Exception {
        String answer = "{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m-1\",\"system_fingerprint\":\"fp_x\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hello\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5,\"total_tokens\":8}}";
        upstream.setDefault(MockResponse.json(200, answer));
        ChatOutcome.Completed done = (ChatOutcome.Completed) executor.chat(call(false));
        assertThat(done.head().status()).isEqualTo(200);
        assertThat(done.response().id()).isEqualTo("chatcmpl-9");
        assertThat(done.response().choices().get(0).message().textContent()).isEqualTo("hello");
        assertThat(done.response().choices().get(0).finishReason()).isEqualTo("stop");
        assertThat(done.response().usage().promptTokens()).isEqualTo(3);
        assertThat(done.response().usage().completionTokens()).isEqualTo(5);
        assertThat(new String(done.openAiBody(), StandardCharsets.UTF_8)).isEqualTo(answer);
    }

    @Test
    void aStreamAsksForEventsAndYieldsTheUpstreamsChunksInOrder() throws Exception {
        upstream.setDefault(MockResponse.chatStream(List.of("Hel", "lo", "!"), Duration.ZERO));
        ChatOutcome outcome = executor.chat(call(true));
        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        ChatOutcome.Streaming streaming = (ChatOutcome.Streaming) outcome;
        assertThat(streaming.head().first("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(contents(streaming.chunks())).containsExactly("Hel", "lo", "!");
        RecordedRequest r = sent();
        assertThat(r.header("Accept")).isEqualTo("text/event-stream");
        assertThat(JSON.readTree(r.body()).path("stream").asBoolean()).isTrue();
    }

    @Test
    void anUpstreamThatIgnoresStreamTrueAndAnswersJsonIsStreamedAsChunks() throws Exception {
        upstream.setDefault(MockResponse.completion("all at once"));
        ChatOutcome outcome = executor.chat(call(true));
        assertThat(outcome).isInstanceOf(ChatOutcome.Streaming.class);
        assertThat(String.join("", contents(((ChatOutcome.Streaming) outcome).chunks()))).isEqualTo("all at once");
    }

    @Test
    void anErrorStatusBecomesAnUpstreamErrorWithItsEnvelopeAndHead() {
        String body = "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_error\",\"code\":\"rate_limited\"}}";
        upstream.setDefault(MockResponse.json(429, body).header("Retry-After", "7"));
        ChatOutcome outcome = executor.chat(call(false));
        assertThat(outcome).isInstanceOf(ChatOutcome.Failed.class);
        assertThat(((ChatOutcome.Failed) outcome).failure()).isInstanceOfSatisfying(UpstreamError.class, e -> {
            assertThat(e.status()).isEqualTo(429);
            assertThat(e.message()).isEqualTo("slow down");
            assertThat(e.errorType()).isEqualTo("rate_limit_error");
            assertThat(e.errorCode()).isEqualTo("rate_limited");
            assertThat(e.body()).isEqualTo(body);
            assertThat(e.head().first("retry-after")).hasValue("7");
        });
    }

    @Test
    void anErrorStatusOnAStreamIsAnErrorNotAStream() {
        upstream.setDefault(MockResponse.json(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        ChatOutcome outcome = executor.chat(call(true));
        assertThat(outcome).isInstanceOfSatisfying(ChatOutcome.Failed.class,
                f -> assertThat(f.failure()).isInstanceOfSatisfying(UpstreamError.class, e -> assertThat(e.status()).isEqualTo(503)));
    }

    @Test
    void aRedirectIsNoAnswerButAProtocolFailureNamingWhereItPointed() {
        upstream.setDefault(MockResponse.json(302, "{}").header("Location", "http://elsewhere.invalid/login"));
        ChatOutcome outcome = executor.chat(call(false));
        assertThat(outcome).isInstanceOfSatisfying(ChatOutcome.Failed.class, f -> assertThat(f.failure()).isInstanceOfSatisfying(TransportError.class, e -> {
            assertThat(e.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
            assertThat(e.message()).contains("302").contains("http://elsewhere.invalid/login");
        }));
    }

    @Test
    void aSuccessWhoseBodyIsNoCompletionIsAProtocolFailure() {
        upstream.setDefault(MockResponse.json(200, "[1,2,3]"));
        ChatOutcome outcome = executor.chat(call(false));
        assertThat(outcome).isInstanceOfSatisfying(ChatOutcome.Failed.class, f -> assertThat(f.failure()).isInstanceOfSatisfying(TransportError.class, e -> {
            assertThat(e.kind()).isEqualTo(TransportErrorKind.PROTOCOL);
            assertThat(e.message()).startsWith("upstream answered 200 with a body that is not a chat completion");
        }));
    }

    @Test
    void anUpstreamThatRefusesTheConnectionIsAConnectFailure() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        ChatCall call = ChatCall.builder(request(false), target("http://127.0.0.1:" + closedPort + "/v1", "k")).requestId("r").timeout(TIMEOUT).build();
        ChatOutcome outcome = executor.chat(call);
        assertThat(outcome).isInstanceOfSatisfying(ChatOutcome.Failed.class,
                f -> assertThat(f.failure()).isInstanceOfSatisfying(TransportError.class, e -> assertThat(e.kind()).isEqualTo(TransportErrorKind.CONNECT_FAILED)));
    }

    @Test
    void embeddingsArePostedToTheirPathAndAnAnswerWithoutDataIsAProtocolFailure() throws Exception {
        EmbeddingCall call = new EmbeddingCall(new EmbeddingRequest("e-1", "\"some text\"", Map.of()), target(), "req-2", TIMEOUT);
        upstream.enqueue(MockResponse.embeddings());
        EmbeddingOutcome ok = executor.embed(call);
        assertThat(ok).isInstanceOf(EmbeddingOutcome.Completed.class);
        RecordedRequest r = sent();
        assertThat(r.path()).isEqualTo("/v1/embeddings");
        assertThat(r.header("Authorization")).isEqualTo("Bearer sk-connection");
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("model").asText()).isEqualTo("e-1");
        assertThat(body.path("input").asText()).isEqualTo("some text");

        upstream.enqueue(MockResponse.json(200, "{\"object\":\"list\"}"));
        assertThat(executor.embed(call)).isInstanceOfSatisfying(EmbeddingOutcome.Failed.class,
                f -> assertThat(f.failure()).isInstanceOfSatisfying(TransportError.class, e -> assertThat(e.kind()).isEqualTo(TransportErrorKind.PROTOCOL)));
    }
}
