package dev.sluice.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MockUpstreamTest {

    private static final String CHAT_BODY =
            "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi \\\"there\\\"\"}]}";

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private MockUpstream upstream;

    @BeforeEach
    void start() {
        upstream = MockUpstream.start();
    }

    @AfterEach
    void stop() {
        upstream.close();
        client.close();
    }

    @Test
    void aModelsRequestIsAnsweredApartAndTakesNoScriptedResponse() throws Exception {
        upstream.models("m-1", "m\"2").enqueue(MockResponse.completion("scripted"));

        HttpResponse<String> models = client.send(HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/models")).GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(models.body()).isEqualTo("{\"object\":\"list\",\"data\":[{\"id\":\"m-1\",\"object\":\"model\",\"created\":0,"
                + "\"owned_by\":\"mock\"},{\"id\":\"m\\\"2\",\"object\":\"model\",\"created\":0,\"owned_by\":\"mock\"}]}");
        assertThat(upstream.modelsRequests()).extracting(RecordedRequest::path).containsExactly("/v1/models");
        assertThat(upstream.requestCount()).isZero();
        assertThat(upstream.connectionCount()).as("a connection that carried only models requests").isZero();
        assertThat(post("/v1/chat/completions", CHAT_BODY).body()).contains("scripted");
        assertThat(upstream.requestCount()).isEqualTo(1);

        upstream.modelsResponse(MockResponse.status(503, "{}"));
        assertThat(client.send(HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/models?x=1")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(503);
    }

    @Test
    void baseUrlIsLoopbackWithTheEphemeralPort() {
        assertThat(upstream.port()).isPositive();
        assertThat(upstream.baseUrl()).isEqualTo("http://127.0.0.1:" + upstream.port());
    }

    @Test
    void jsonResponseCarriesStatusHeadersAndBody() throws Exception {
        upstream.enqueue(MockResponse.status(429, "{\"error\":\"slow down\"}").header("Retry-After", "7"));

        HttpResponse<String> response = post("/v1/chat/completions", CHAT_BODY);

        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("retry-after")).hasValue("7");
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.body()).isEqualTo("{\"error\":\"slow down\"}");
    }

    @Test
    void headerReturnsANewInstanceAndCanReplaceTheContentType() throws Exception {
        MockResponse plain = MockResponse.json(200, "ok");
        MockResponse text = plain.header("Content-Type", "text/plain");
        assertThat(text).isNotSameAs(plain);
        upstream.enqueue(text).enqueue(plain);

        assertThat(post("/", "").headers().allValues("content-type")).containsExactly("text/plain");
        assertThat(post("/", "").headers().allValues("content-type")).containsExactly("application/json");
    }

    @Test
    void recordsMethodPathHeadersAndBody() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/chat/completions?x=1"))
                .header("Authorization", "Bearer sk-test").header("X-Custom", "a")
                .POST(HttpRequest.BodyPublishers.ofString(CHAT_BODY)).build();
        client.send(request, HttpResponse.BodyHandlers.ofString());

        RecordedRequest recorded = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(recorded.method()).isEqualTo("POST");
        assertThat(recorded.path()).isEqualTo("/v1/chat/completions?x=1");
        assertThat(recorded.header("authorization")).isEqualTo("Bearer sk-test");
        assertThat(recorded.header("X-CUSTOM")).isEqualTo("a");
        assertThat(recorded.headers()).containsKey("x-custom");
        assertThat(recorded.body()).isEqualTo(CHAT_BODY);
        assertThat(upstream.requests()).containsExactly(recorded);
        assertThat(upstream.requestCount()).isEqualTo(1);
    }

    @Test
    void recordsTheClientsRemoteAddress() throws Exception {
        post("/a", "");

        assertThat(upstream.takeRequest(Duration.ofSeconds(5)).remoteAddress()).isEqualTo("127.0.0.1");
    }

    @Test
    void recordsTheLocalAddressAClientBoundTo() throws Exception {
        // Linux routes all of 127.0.0.0/8 through lo, so a client may bind 127.0.0.2
        try (Socket socket = new Socket(java.net.InetAddress.getLoopbackAddress(), upstream.port(),
                java.net.InetAddress.getByName("127.0.0.2"), 0)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /bound HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(UTF_8));
            out.flush();
            socket.getInputStream().readAllBytes();
        }

        RecordedRequest recorded = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(recorded.path()).isEqualTo("/bound");
        assertThat(recorded.remoteAddress()).isEqualTo("127.0.0.2");
    }

    @Test
    void aHandBuiltRecordedRequestHasNoRemoteAddress() {
        RecordedRequest request = new RecordedRequest("GET", "/", java.util.Map.of(), "");

        assertThat(request.remoteAddress()).isNull();
        assertThat(request).isEqualTo(new RecordedRequest("GET", "/", java.util.Map.of(), "", null));
    }

    @Test
    void takeRequestReturnsNullOnTimeoutAndEachRequestOnce() throws Exception {
        assertThat(upstream.takeRequest(Duration.ofMillis(50))).isNull();
        post("/a", "");
        post("/b", "");
        assertThat(upstream.takeRequest(Duration.ofSeconds(1)).path()).isEqualTo("/a");
        assertThat(upstream.takeRequest(Duration.ofSeconds(1)).path()).isEqualTo("/b");
        assertThat(upstream.takeRequest(Duration.ofMillis(50))).isNull();
    }

    @Test
    void enqueuedResponsesAreServedInOrderThenTheDefault() throws Exception {
        upstream.enqueue(MockResponse.json(200, "first")).enqueue(MockResponse.status(503, "second"));
        upstream.setDefault(MockResponse.json(202, "default"));

        assertThat(post("/x", "").body()).isEqualTo("first");
        HttpResponse<String> second = post("/y", "");
        assertThat(second.statusCode()).isEqualTo(503);
        assertThat(second.body()).isEqualTo("second");
        assertThat(post("/z", "").body()).isEqualTo("default");
        assertThat(post("/z", "").body()).isEqualTo("default");
    }

    @Test
    void defaultEchoCompletionNamesTheRequestedModelAndEchoesTheLastMessage() throws Exception {
        String body = post("/v1/chat/completions", CHAT_BODY).body();

        assertThat(body).contains("\"object\":\"chat.completion\"", "\"model\":\"gpt-test\"",
                "\"content\":\"echo: hi \\\"there\\\"\"", "\"finish_reason\":\"stop\"",
                "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5,\"total_tokens\":8}");
        assertThat(post("/v1/chat/completions", "{}").body())
                .contains("\"model\":\"mock-model\"", "\"content\":\"Hello from mock\"");
    }

    @Test
    void completionEscapesItsContent() throws Exception {
        upstream.enqueue(MockResponse.completion("line \"one\"\nline two"));

        assertThat(post("/v1/chat/completions", CHAT_BODY).body())
                .contains("\"message\":{\"role\":\"assistant\",\"content\":\"line \\\"one\\\"\\nline two\"}");
    }

    @Test
    void embeddingsReturnOneVectorForTheRequestedModel() throws Exception {
        upstream.enqueue(MockResponse.embeddings());

        assertThat(post("/v1/embeddings", "{\"model\":\"emb-1\",\"input\":\"x\"}").body())
                .contains("\"object\":\"list\"", "\"embedding\":[0.1,0.2,0.3]", "\"model\":\"emb-1\"");
    }

    @Test
    void chatStreamDeliversEventsWithTheirDelays() throws Exception {
        upstream.enqueue(MockResponse.chatStream(List.of("Hel", "lo", "!"), Duration.ofMillis(200)));
        HttpRequest request = HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(CHAT_BODY)).build();

        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        List<String> data = new ArrayList<>();
        List<Long> arrivals = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (line.startsWith("data: ")) {
                    data.add(line.substring(6));
                    arrivals.add(System.nanoTime());
                }
            }
        }

        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(data).hasSize(6);
        assertThat(data.getFirst()).contains("\"object\":\"chat.completion.chunk\"", "\"id\":\"chatcmpl-mock\"",
                "\"model\":\"gpt-test\"", "\"delta\":{\"role\":\"assistant\"");
        assertThat(data.get(1)).contains("\"delta\":{\"content\":\"Hel\"}");
        assertThat(data.get(3)).contains("\"delta\":{\"content\":\"!\"}");
        assertThat(data.get(4)).contains("\"finish_reason\":\"stop\"", "\"usage\":{");
        assertThat(data.getLast()).isEqualTo("[DONE]");
        long firstToLastMillis = TimeUnit.NANOSECONDS.toMillis(arrivals.getLast() - arrivals.getFirst());
        assertThat(firstToLastMillis).isGreaterThanOrEqualTo(150);
    }

    @Test
    void sseWritesEachPayloadAsADataEvent() throws Exception {
        upstream.enqueue(MockResponse.sse(List.of("{\"a\":1}", "[DONE]"), Duration.ZERO));

        assertThat(post("/stream", "").body()).isEqualTo("data: {\"a\":1}\n\ndata: [DONE]\n\n");
    }

    @Test
    void resetMakesTheClientFailWithAnIOException() {
        upstream.enqueue(MockResponse.reset());

        assertThatThrownBy(() -> post("/v1/chat/completions", CHAT_BODY)).isInstanceOf(IOException.class);
        assertThat(upstream.requestCount()).isEqualTo(1);
    }

    @Test
    void resetAfterHeadersFailsTheStreamAfterTheFirstEvent() throws Exception {
        upstream.enqueue(MockResponse.resetAfterHeaders());
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + CHAT_BODY.length()
                    + "\r\n\r\n" + CHAT_BODY);
            String head = raw.readUntil("\r\n\r\n");
            assertThat(head).startsWith("HTTP/1.1 200 OK").contains("Transfer-Encoding: chunked");
            assertThatThrownBy(() -> raw.readUntilEnd()).isInstanceOf(IOException.class);
        }

        HttpResponse<InputStream> response = client.send(
                HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200); // the default again, on a new connection
        response.body().close();
    }

    @Test
    void resetAfterHeadersDeliversOneEventToAStreamingClientBeforeFailing() throws Exception {
        upstream.enqueue(MockResponse.resetAfterHeaders());
        HttpResponse<InputStream> response = client.send(
                HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/v1/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString(CHAT_BODY)).build(),
                HttpResponse.BodyHandlers.ofInputStream());

        assertThat(response.statusCode()).isEqualTo(200);
        BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), UTF_8));
        assertThat(reader.readLine()).startsWith("data: ").contains("\"content\":\"partial\"");
        assertThatThrownBy(() -> {
            while (reader.readLine() != null) {
                // drain until the reset surfaces
            }
        }).isInstanceOf(IOException.class);
    }

    @Test
    void delayedWaitsBeforeAnswering() throws Exception {
        upstream.enqueue(MockResponse.delayed(Duration.ofMillis(300), MockResponse.json(200, "late")));

        long start = System.nanoTime();
        assertThat(post("/", "").body()).isEqualTo("late");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
    }

    @Test
    void hangNeverAnswersButDoesNotBlockClose() throws Exception {
        upstream.enqueue(MockResponse.hang());
        CompletableFuture<HttpResponse<String>> pending = client.sendAsync(
                HttpRequest.newBuilder(URI.create(upstream.baseUrl() + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(upstream.takeRequest(Duration.ofSeconds(5))).isNotNull();
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> !pending.isDone());

        long start = System.nanoTime();
        upstream.close();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
        assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class);
    }

    @Test
    void keepAliveServesTwoRequestsOnOneConnection() throws Exception {
        upstream.enqueue(MockResponse.json(200, "one")).enqueue(MockResponse.json(201, "two"));
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.readResponse()).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\none");
            raw.send("POST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi");
            assertThat(raw.readResponse()).startsWith("HTTP/1.1 201 Created").endsWith("\r\n\r\ntwo");
        }
        assertThat(upstream.requests()).extracting(RecordedRequest::path).containsExactly("/first", "/second");
    }

    @Test
    void streamKeepsTheConnectionUsable() throws Exception {
        upstream.enqueue(MockResponse.sse(List.of("x"), Duration.ZERO)).enqueue(MockResponse.json(200, "after"));
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("GET /s HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.readUntil("0\r\n\r\n")).contains("data: x\n\n");
            raw.send("GET /j HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(raw.readResponse()).endsWith("after");
        }
    }

    @Test
    void chunkedRequestBodyIsDecodedAndRecorded() throws Exception {
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\n{\"mod\r\nd;ext=1\r\nel\":\"chunky\"}\r\n0\r\nX-Trailer: t\r\n\r\n");
            assertThat(raw.readResponse()).contains("\"model\":\"chunky\"");
        }
        assertThat(upstream.takeRequest(Duration.ofSeconds(1)).body()).isEqualTo("{\"model\":\"chunky\"}");
    }

    @Test
    void connectionCloseFromTheClientEndsTheConnectionAfterTheResponse() throws Exception {
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            String all = raw.readUntilEnd();
            assertThat(all).startsWith("HTTP/1.1 200 OK").contains("Connection: close\r\n").contains("Hello from mock");
        }
    }

    @Test
    void clearForgetsScriptRecordingsAndDefault() throws Exception {
        upstream.setDefault(MockResponse.json(500, "x")).enqueue(MockResponse.json(201, "scripted"));
        post("/", "");
        upstream.enqueue(MockResponse.json(201, "scripted"));

        upstream.clear();

        assertThat(upstream.requests()).isEmpty();
        assertThat(upstream.requestCount()).isZero();
        assertThat(upstream.takeRequest(Duration.ZERO)).isNull();
        assertThat(post("/", "").body()).contains("chat.completion");
    }

    @Test
    void closeEndsIdleKeepAliveConnectionsAndIsIdempotent() throws Exception {
        try (RawClient raw = new RawClient(upstream.port())) {
            raw.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            raw.readResponse();
            upstream.close();
            upstream.close();
            assertThat(raw.in.read()).isEqualTo(-1);
        }
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(upstream.baseUrl() + path))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
