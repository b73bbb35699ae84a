package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and careless input found by the issue-19 probe: admin values that used to be stored and
 * then broke the client API, and client values one API refused while another forwarded (SEC-6,
 * API-6).
 */
class HostileInputIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String clientKey;
    LogCapture log;

    @BeforeEach
    void start() {
        log = new LogCapture();
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        upstream.setDefault(MockResponse.completion("ok"));
        clientKey = sluice.addKey("{\"name\":\"client\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
        log.close();
    }

    private HttpResponse<String> admin(String method, String path, String body) {
        return sluice.send(method, path, ADMIN_KEY, body);
    }

    private static void assertRefused(HttpResponse<String> r, String field, String messagePart) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode err = read(r.body()).get("error");
        assertThat(err.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(err.get("param").asText()).isEqualTo(field);
        assertThat(err.get("message").asText()).contains(field).contains(messagePart);
    }

    private static String custom(String extra) {
        return "{\"provider\":\"acme\",\"authType\":\"apikey\",\"apiKey\":\"sk-acme-0123456789\"," + extra + "}";
    }

    @Test
    void anUpperCaseSchemeIsStoredLowerCaseAndTheClientApiKeepsServing_AD1() {
        String upper = upstream.baseUrl().replace("http://", "HTTP://") + "/v1";
        HttpResponse<String> created = admin("POST", "/api/providers", custom("\"baseUrl\":\"" + upper + "\""));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(read(created.body()).get("baseUrl").asText()).isEqualTo(upstream.baseUrl() + "/v1");

        assertThat(sluice.send("GET", "/v1/models", clientKey, null).statusCode()).isEqualTo(200);
        HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("acme/some-model", false));
        assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
        // a bare model walks every provider with a connection: it must find none, not fail
        assertThat(sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("some-model", false)).statusCode()).isEqualTo(404);
    }

    @Test
    void aStoredRowThatCannotDefineAProviderIsSkippedNotA500ForEveryone_AD1() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        // a row written before validation existed (or edited in the database)
        sluice.server.connections().create(new NewConnection("broken", "broken", ProviderClass.APIKEY, "sk-broken-0123456789", null,
                "ftp://files.example/v1", 1, true, null, null, false, null, null, null));

        HttpResponse<String> models = sluice.send("GET", "/v1/models", clientKey, null);
        assertThat(models.statusCode()).as(models.body()).isEqualTo(200);
        HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("good/some-model", false));
        assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
        assertThat(sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("some-model", false)).statusCode()).isEqualTo(404);
        assertThat(log.text()).contains("custom provider 'broken' is skipped");
    }

    @Test
    void portsOutsideOneTo65535AreRefusedNamingTheField_AD1() {
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example:99999/v1\"")), "baseUrl", "65535");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example:0/v1\"")), "baseUrl", "65535");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"proxyUrl\":\"http://proxy.example:70000\"")),
                "proxyUrl", "65535");
    }

    @Test
    void aBaseUrlWithAQueryOrFragmentIsRefused_AD1() {
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1?x=1#f\"")), "baseUrl", "query");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1#f\"")), "baseUrl", "fragment");
    }

    @Test
    void aLocalAddressThisMachineDoesNotHoldIsRefused_AD1() {
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"localAddress\":\"8.8.8.8\"")),
                "localAddress", "not a loopback address");
        assertThat(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"localAddress\":\"127.0.0.2\"")).statusCode())
                .isEqualTo(201);
    }

    @Test
    void overlongNamesAndStringsAreRefusedWithTheLimit_SEC6() {
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"name\":\"" + "n".repeat(257) + "\"")),
                "name", "256");
        assertRefused(admin("POST", "/api/keys", "{\"name\":\"" + "n".repeat(257) + "\"}"), "name", "256");
        assertRefused(admin("POST", "/api/keys", "{\"name\":\"" + "n".repeat(5 * 1024 * 1024) + "\"}"), "name", "65536");
        assertThat(admin("POST", "/api/keys", "{\"name\":\"" + "n".repeat(256) + "\"}").statusCode()).isEqualTo(201);
    }

    @Test
    void aLoneSurrogateIsRefusedInsteadOfStoredAsAQuestionMark_AD1() {
        assertRefused(admin("POST", "/api/keys", "{\"name\":\"bad \\ud800 name\"}"), "name", "surrogate");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"providerSpecificData\":{\"x\":\"\\udc00\"}")),
                "providerSpecificData.x", "surrogate");
        HttpResponse<String> paired = admin("POST", "/api/keys", "{\"name\":\"emoji \\ud83d\\ude00\"}");
        assertThat(paired.statusCode()).isEqualTo(201);
        assertThat(read(paired.body()).get("name").asText()).isEqualTo("emoji \uD83D\uDE00");
    }

    @Test
    void aStreamEventPastTheLimitEndsTheStreamWithAnErrorEvent_SEC6() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        String chunk = "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}";
        upstream.enqueue(MockResponse.sse(java.util.List.of(chunk, "x".repeat(dev.sluice.toolkit.sse.SseLineReader.MAX_EVENT_CHARS + 1)),
                java.time.Duration.ZERO));
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("good/m", true));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"content\":\"Hi\"")
                .contains("longer than 4194304 characters (the gateway's limit per server-sent event)")
                .doesNotContain("[DONE]");
        assertThat(r.body().length()).isLessThan(64 * 1024);
    }

    @Test
    void aFirstStreamEventPastTheLimitIsTheUpstreamsProtocolError_SEC6() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        upstream.enqueue(MockResponse.sse(java.util.List.of("x".repeat(dev.sluice.toolkit.sse.SseLineReader.MAX_EVENT_CHARS + 1)),
                java.time.Duration.ZERO));
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("good/m", true));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        JsonNode err = read(r.body()).get("error");
        assertThat(err.get("message").asText()).contains("protocol").contains("the gateway's limit per server-sent event");
    }

    @Test
    void aNonStringMessageNameIsRefused_API6() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\",\"name\":{\"a\":1}}]}");
        assertRefused(r, "messages[0].name", "string");
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void messagesRefusesTheModelNamesChatCompletionsRefuses_API6() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        for (String path : new String[] {"/v1/messages", "/v1/messages/count_tokens"}) {
            for (String model : new String[] {"a\\r\\nX-Injected: 1", "a\\nb", "a\\u0000b", "m".repeat(257)}) {
                HttpResponse<String> r = sluice.send("POST", path, null,
                        "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                        Map.of("x-api-key", clientKey, "anthropic-version", "2023-06-01"));
                assertThat(r.statusCode()).as(path + " " + model + " " + r.body()).isEqualTo(400);
                JsonNode body = read(r.body());
                assertThat(body.get("type").asText()).isEqualTo("error");
                assertThat(body.at("/error/type").asText()).isEqualTo("invalid_request_error");
                assertThat(body.at("/error/message").asText()).contains("'model'");
            }
        }
        assertThat(upstream.requestCount()).isZero();
    }

    // ------------------------------------------------------------------ issue 29

    private HttpResponse<String> messages(String model) {
        return sluice.send("POST", "/v1/messages", null,
                "{\"model\":\"" + model + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                Map.of("x-api-key", clientKey, "anthropic-version", "2023-06-01"));
    }

    @Test
    void aModelWithWhitespaceNextToItsSlashIsRefusedBeforeAnyUpstreamIsCalled_issue29() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        for (String model : new String[] {"good/ x", "good/x ", " good/x"}) {
            HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(model, false));
            assertRefused(chat, "model", "whitespace");
            assertThat(chat.headers().firstValue("X-Request-Id")).isPresent();
            HttpResponse<String> responses = sluice.send("POST", "/v1/responses", clientKey, "{\"model\":\"" + model + "\",\"input\":\"hi\"}");
            assertRefused(responses, "model", "whitespace");
            HttpResponse<String> anthropic = messages(model);
            assertThat(anthropic.statusCode()).as(anthropic.body()).isEqualTo(400);
            assertThat(read(anthropic.body()).at("/error/message").asText()).contains("'model'").contains("whitespace");
        }
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void responsesRefusesControlCharactersInTheModelLikeEveryEndpoint_issue29() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        for (String model : new String[] {"good/m\\t", "good/m\\u007f", "good/m\\n"}) {
            assertRefused(sluice.send("POST", "/v1/responses", clientKey, "{\"model\":\"" + model + "\",\"input\":\"hi\"}"),
                    "model", "control character");
        }
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void aLoneSurrogateInAForwardedFieldIsA400NamingTheField_issue29() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        for (String field : new String[] {"user", "tool_choice", "n", "response_format", "stream_options", "metadata"}) {
            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey,
                    "{\"model\":\"good/m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"" + field + "\":\"\\ud800\"}");
            assertRefused(r, field, "surrogate");
        }
        HttpResponse<String> nested = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"good/m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"metadata\":{\"k\":\"\\udc00\"}}");
        assertRefused(nested, "metadata", "surrogate");
        assertThat(upstream.requestCount()).isZero();
        HttpResponse<String> paired = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"good/m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"user\":\"\\ud83d\\ude00\"}");
        assertThat(paired.statusCode()).as(paired.body()).isEqualTo(200);
    }

    @Test
    void metricsLabelNoRawClientModelNames_issue29() {
        sluice.addOpenAiCompatible("good", upstream.baseUrl() + "/v1", 1);
        sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("good/../../x", false));
        sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("good/x?alt=evil", false));
        sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("good/m", false));
        HttpResponse<String> metrics = sluice.send("GET", "/metrics", ADMIN_KEY, null);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("model=\"m\"").doesNotContain("../../x").doesNotContain("alt=evil");
    }

    @Test
    void proxyUrlsWithoutAPortOrWithAPathAndBaseUrlsWithDotSegmentsAreRefused_issue29() {
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"proxyUrl\":\"http://proxy.example\"")),
                "proxyUrl", "port");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"proxyUrl\":\"http://proxy.example:3128/p\"")),
                "proxyUrl", "path");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1/../admin\"")), "baseUrl", "'..'");
        assertRefused(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1/%2e%2e/admin\"")), "baseUrl", "'..'");
        String id = read(admin("POST", "/api/providers", custom("\"baseUrl\":\"http://host.example/v1\",\"proxyUrl\":\"http://proxy.example:3128\""))
                .body()).get("id").asText();
        assertRefused(admin("PUT", "/api/providers/" + id, custom("\"baseUrl\":\"http://host.example/a/./b\"")), "baseUrl", "'.'");
        assertRefused(admin("PUT", "/api/providers/" + id,
                custom("\"baseUrl\":\"http://host.example/v1\",\"proxyUrl\":\"http://proxy.example\"")), "proxyUrl", "port");
    }

    @Test
    void expect100ContinueWithABodyOverTheLimitIsAnswered413AtOnce_issue29() throws Exception {
        java.net.URI base = java.net.URI.create(sluice.base());
        try (java.net.Socket socket = new java.net.Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + clientKey
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + (dev.sluice.runtime.config.SluiceConfig.DEFAULT_MAX_BODY_BYTES + 1)
                    + "\r\nExpect: 100-continue\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String statusLine = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII)).readLine();
            assertThat(statusLine).startsWith("HTTP/1.1 413");
        }
    }
}
