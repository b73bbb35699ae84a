package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chat completions through a real Sluice to real mock upstreams on loopback (API-1, API-5, routing, failover). */
class ChatCompletionsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream primary;
    MockUpstream secondary;
    String clientKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        primary = MockUpstream.start();
        secondary = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        primary.close();
        secondary.close();
    }

    @Test
    void nonStreamingCompletionIsProxiedWithRoutingHeaders_API1_API5() throws Exception {
        String id = sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.completion("Hello there"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"mockai/gpt-x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"seed\":7,\"response_format\":{\"type\":\"text\"}}",
                Map.of("X-Session-Id", "s-1", "X-Custom", "leak?"));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode body = read(r.body());
        assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("Hello there");
        assertThat(body.at("/object").asText()).isEqualTo("chat.completion");
        assertThat(body.at("/usage/total_tokens").asInt()).isEqualTo(8);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(id);
        assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("mockai");
        assertThat(r.headers().firstValue("X-Sluice-Model")).contains("gpt-x");
        assertThat(r.headers().firstValue("X-Request-Id")).hasValueSatisfying(v -> assertThat(v).startsWith("req_"));

        RecordedRequest up = primary.takeRequest(Duration.ofSeconds(5));
        assertThat(up.path()).isEqualTo("/v1/chat/completions");
        assertThat(up.header("authorization")).isEqualTo("Bearer sk-upstream-mockai-1-abcdef");
        // SEC-5 / SA-3: upstream headers are built from scratch; nothing of the client's is forwarded
        assertThat(up.headers()).doesNotContainKeys("x-session-id", "x-custom");
        assertThat(up.header("authorization")).doesNotContain(clientKey);
        JsonNode sent = read(up.body());
        assertThat(sent.get("model").asText()).isEqualTo("gpt-x");
        assertThat(sent.get("seed").asInt()).isEqualTo(7);
        assertThat(sent.at("/response_format/type").asText()).isEqualTo("text");
    }

    @Test
    void streamReachesTheClientChunkByChunkBeforeTheUpstreamFinishes_API1() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.chatStream(List.of("Hel", "lo", " world"), Duration.ofMillis(400)));

        HttpRequest req = HttpRequest.newBuilder(URI.create(sluice.base() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + clientKey)
                .POST(HttpRequest.BodyPublishers.ofString(chatBody("mockai/gpt-x", true))).build();
        HttpResponse<java.io.InputStream> r = sluice.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("mockai");

        List<String> events = new ArrayList<>();
        List<Long> arrivals = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("data: ")) {
                    events.add(line.substring(6));
                    arrivals.add(System.nanoTime());
                }
            }
        }
        assertThat(events.get(events.size() - 1)).isEqualTo("[DONE]");
        StringBuilder text = new StringBuilder();
        for (String e : events.subList(0, events.size() - 1)) {
            JsonNode chunk = read(e);
            assertThat(chunk.get("object").asText()).isEqualTo("chat.completion.chunk");
            JsonNode content = chunk.at("/choices/0/delta/content");
            if (!content.isMissingNode()) {
                text.append(content.asText());
            }
        }
        assertThat(text).hasToString("Hello world");
        // the mock pauses 400 ms between events: the first event must reach the client long before the last
        long spreadMs = (arrivals.get(arrivals.size() - 1) - arrivals.get(0)) / 1_000_000;
        assertThat(spreadMs).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void serverErrorFailsOverToTheNextConnectionByPriority_DM1() throws Exception {
        String first = sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        String second = sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
        primary.enqueue(MockResponse.status(500, "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"));
        secondary.enqueue(MockResponse.completion("from secondary"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).at("/choices/0/message/content").asText()).isEqualTo("from secondary");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(second);
        String requestId = r.headers().firstValue("X-Request-Id").orElseThrow();
        // issue 26: the failed attempt is always persisted, the served one only when sampled (1 % by default)
        assertThat(sluice.server.proxyLogWriter().flush(Duration.ofSeconds(5))).isTrue();
        List<ProxyLogRow> rows = sluice.server.proxyLogs().recent(10);
        assertThat(rows).filteredOn(row -> row.errorType() != null).singleElement().satisfies(failed -> {
            assertThat(failed.connectionId()).isEqualTo(first);
            assertThat(failed.status()).isEqualTo(500);
            assertThat(failed.errorType()).isEqualTo("server_error");
            assertThat(failed.provider()).isEqualTo("mockai");
            assertThat(failed.model()).isEqualTo("gpt-x");
            assertThat(failed.requestId()).isEqualTo(requestId);
        });
        // both attempts are in the recent history
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            JsonNode entry = read(sluice.send("GET", "/api/logs", SluiceHarness.ADMIN_KEY, null).body()).at("/requests/0");
            assertThat(entry.get("requestId").asText()).isEqualTo(requestId);
            assertThat(entry.at("/attempts/0/connectionId").asText()).isEqualTo(first);
            assertThat(entry.at("/attempts/1/connectionId").asText()).isEqualTo(second);
            assertThat(entry.at("/attempts/1/status").asInt()).isEqualTo(200);
            assertThat(entry.at("/attempts/1/errorType").isNull()).isTrue();
        });
    }

    @Test
    void rateLimitAndConnectionResetFailOver_DM1() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        String second = sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);

        primary.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "7"));
        secondary.enqueue(MockResponse.completion("after 429"));
        HttpResponse<String> r1 = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));
        assertThat(r1.statusCode()).isEqualTo(200);
        assertThat(r1.headers().firstValue("X-Sluice-Connection-Id")).contains(second);

        primary.enqueue(MockResponse.reset());
        secondary.enqueue(MockResponse.completion("after reset"));
        HttpResponse<String> r2 = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));
        assertThat(r2.statusCode()).isEqualTo(200);
        assertThat(read(r2.body()).at("/choices/0/message/content").asText()).isEqualTo("after reset");
    }

    @Test
    void streamThatDiesBeforeItsFirstChunkFailsOverWithoutTheClientNoticing() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
        primary.enqueue(MockResponse.reset());
        secondary.enqueue(MockResponse.chatStream(List.of("ok"), Duration.ofMillis(10)));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"content\":\"ok\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void midStreamUpstreamFailureEndsTheStreamWithAnErrorEvent() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.resetAfterHeaders());

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"content\":\"partial\"").contains("\"code\":\"upstream_stream_error\"")
                .doesNotContain("[DONE]");
    }

    @Test
    void requestErrorsAreNotRetriedOnOtherConnections() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
        primary.enqueue(MockResponse.status(400, "{\"error\":{\"message\":\"bad tool schema\",\"type\":\"invalid_request_error\",\"code\":\"invalid_tools\"}}"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode err = read(r.body()).get("error");
        assertThat(err.get("message").asText()).contains("mockai/gpt-x").contains("bad tool schema");
        assertThat(err.get("code").asText()).isEqualTo("invalid_tools");
        assertThat(secondary.requestCount()).isZero();
    }

    @Test
    void whenEveryConnectionFailsTheClientGetsTheUpstreamStatusNamingTheProvider_API6() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        String second = sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
        primary.enqueue(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        secondary.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"rate limited\"}}").header("Retry-After", "12"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("Retry-After")).contains("12");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(second);
        assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("mockai");
        JsonNode err = read(r.body()).get("error");
        assertThat(err.get("type").asText()).isEqualTo("rate_limit_error");
        assertThat(err.get("message").asText()).contains("mockai").contains("rate limited");
    }

    @Test
    void transportFailureOnEveryConnectionIsA502NotA500_API6() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.reset());

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(read(r.body()).at("/error/message").asText()).contains("mockai");
    }

    @Test
    void connectionsOfEqualPriorityAreTriedInCreationOrder_DM1() throws Exception {
        String older = sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 3);
        sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 3);

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(older);
        assertThat(secondary.requestCount()).isZero();
    }

    @Test
    void keyRestrictedToAConnectionOnlyUsesThatConnection() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        String allowed = sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
        String restricted = sluice.addKey("{\"name\":\"restricted\",\"allowedConnections\":[\"" + allowed + "\"]}");

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", restricted, chatBody("mockai/gpt-x", false));

        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(allowed);
        assertThat(primary.requestCount()).isZero();
    }

    @Test
    void embeddingsArePassedThrough_API4() throws Exception {
        String id = sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.embeddings());

        HttpResponse<String> r = sluice.send("POST", "/v1/embeddings", clientKey,
                "{\"model\":\"mockai/embed-1\",\"input\":[\"a\",\"b\"],\"dimensions\":3}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).at("/data/0/embedding").isArray()).isTrue();
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(id);
        RecordedRequest up = primary.takeRequest(Duration.ofSeconds(5));
        assertThat(up.path()).isEqualTo("/v1/embeddings");
        JsonNode sent = read(up.body());
        assertThat(sent.get("model").asText()).isEqualTo("embed-1");
        assertThat(sent.get("input").toString()).isEqualTo("[\"a\",\"b\"]");
        assertThat(sent.get("dimensions").asInt()).isEqualTo(3);
    }

    @Test
    void modelsListsRoutableModelsOfProvidersWithEnabledConnections_API2() throws Exception {
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-openai-test-123456789\",\"baseUrl\":\""
                + primary.baseUrl() + "/v1\"}");
        sluice.addConnection("{\"provider\":\"mockai\",\"authType\":\"apikey\",\"apiKey\":\"sk-x-0123456789abcdef\",\"baseUrl\":\""
                + primary.baseUrl() + "/v1\",\"providerSpecificData\":{\"models\":[\"m-1\",\"m-2\"]}}");

        HttpResponse<String> r = sluice.send("GET", "/v1/models", clientKey, null);

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode body = read(r.body());
        assertThat(body.get("object").asText()).isEqualTo("list");
        List<String> ids = new ArrayList<>();
        body.get("data").forEach(m -> ids.add(m.get("id").asText()));
        assertThat(ids).contains("openai/gpt-4o-mini", "mockai/m-1", "mockai/m-2").doesNotContain("glm/glm-4.6");
        assertThat(body.at("/data/0/object").asText()).isEqualTo("model");

        HttpResponse<String> one = sluice.send("GET", "/v1/models/mockai/m-2", clientKey, null);
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(read(one.body()).get("id").asText()).isEqualTo("mockai/m-2");
        assertThat(read(one.body()).get("owned_by").asText()).isEqualTo("mockai");
        // issue 32: a custom provider passes any model name through, so chat would route this one: 200 too
        assertThat(sluice.send("GET", "/v1/models/mockai/nope", clientKey, null).statusCode()).isEqualTo(200);
        HttpResponse<String> missing = sluice.send("GET", "/v1/models/nobody/nope", clientKey, null);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(read(missing.body()).at("/error/code").asText()).isEqualTo("model_not_found");
    }

    @Test
    void bareModelNameResolvesThroughAProviderThatListsIt() throws Exception {
        String id = sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-openai-test-123456789\",\"baseUrl\":\""
                + primary.baseUrl() + "/v1\"}");

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("gpt-4o-mini", false));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(id);
        assertThat(read(primary.takeRequest(Duration.ofSeconds(5)).body()).get("model").asText()).isEqualTo("gpt-4o-mini");
    }

    @Test
    void streamThatEndsWithoutFinishingIsReportedNotPassedOffAsComplete() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.sse(List.of(
                "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"half\"},\"finish_reason\":null}]}"),
                Duration.ofMillis(5)));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"content\":\"half\"").contains("upstream_stream_error").doesNotContain("data: [DONE]");
    }

    @Test
    void upstreamRedirectIsAGateway502NotARedirectToTheClient() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.status(301, "").header("Location", "https://elsewhere.invalid/v1"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("quality_failure");
        assertThat(read(r.body()).at("/error/message").asText()).contains("301");
    }

    @Test
    void completedStreamsGiveTheirUpstreamConnectionBackToThePool() throws Exception {
        // the model discovery of the new connection (issue 32) ends first, so it cannot open a second connection beside these
        sluice.awaitModelDiscovery(sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1));
        for (int i = 0; i < 5; i++) {
            primary.enqueue(MockResponse.chatStream(List.of("a", "b"), Duration.ofMillis(1)));
            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", true));
            assertThat(r.body()).endsWith("data: [DONE]\n\n");
        }
        // a new TCP connection per stream cost every stream's first byte (found by bench/run.sh)
        assertThat(primary.connectionCount()).isEqualTo(1);
    }

    @Test
    void completeAnswersGiveTheirUpstreamConnectionBackToThePool() throws Exception {
        // the model discovery of the new connection (issue 32) ends first, so it cannot open a second connection beside these
        sluice.awaitModelDiscovery(sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1));
        for (int i = 0; i < 5; i++) {
            assertThat(sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false)).statusCode())
                    .isEqualTo(200);
        }
        assertThat(primary.connectionCount()).isEqualTo(1);
    }

    @Test
    void anUpstreamThatIgnoresStreamTrueIsStreamedToTheClientAnyway() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.completion("all at once"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
        assertThat(r.body()).contains("\"content\":\"all at once\"").contains("\"finish_reason\":\"stop\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void upstreamKeepAliveCommentsAreRelayedAsComments() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.sse(List.of(
                "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"x\"},\"finish_reason\":null}]}\n\n: ping",
                "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}",
                "[DONE]"), Duration.ofMillis(5)));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", true));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains(": keep-alive\n\n").contains("\"content\":\"x\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void statusesAClientCannotTakeBecome502() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.status(600, "{\"error\":{\"message\":\"weird\"}}"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(502);
    }

    @Test
    void anUpstreamEchoingTheKeyDoesNotLeakItToTheClient_SEC2() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.status(401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-upstream-mockai-1-abcdef\"}}"));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/gpt-x", false));

        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).doesNotContain("sk-upstream-mockai-1-abcdef").contains("****");
    }

    @Test
    void embeddingsThatAreNotAnEmbeddingsListAreA502() throws Exception {
        sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        primary.enqueue(MockResponse.json(200, "<html>oops</html>"));

        HttpResponse<String> r = sluice.send("POST", "/v1/embeddings", clientKey, "{\"model\":\"mockai/e\",\"input\":\"a\"}");

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("quality_failure");
    }

    @Test
    void modelsListOnlyWhatTheKeyMayRouteToAndRetrieveAcceptsBareNames_API2() throws Exception {
        sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-openai-test-123456789\",\"baseUrl\":\""
                + primary.baseUrl() + "/v1\"}");
        String glm = sluice.addConnection("{\"provider\":\"glm\",\"authType\":\"apikey\",\"apiKey\":\"glm-key-0123456789\",\"baseUrl\":\""
                + primary.baseUrl() + "/v1\"}");
        String restricted = sluice.addKey("{\"name\":\"glm-only\",\"allowedConnections\":[\"" + glm + "\"]}");

        String listed = sluice.send("GET", "/v1/models", restricted, null).body();

        assertThat(listed).contains("\"glm/glm-4.6\"").doesNotContain("openai/");
        HttpResponse<String> bare = sluice.send("GET", "/v1/models/gpt-4o", clientKey, null);
        assertThat(bare.statusCode()).isEqualTo(200);
        assertThat(read(bare.body()).get("owned_by").asText()).isEqualTo("openai");
    }
}
