package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every error case of SPEC API-6, in the OpenAI envelope, never a 500 or a stack trace. */
class ApiErrorsIT {

    static final long SMALL_LIMIT = 4096;

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String clientKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir, SMALL_LIMIT);
        upstream = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
        sluice.addOpenAiCompatible("mockai", upstream.baseUrl() + "/v1", 1);
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private static JsonNode error(HttpResponse<String> r) {
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ");
        JsonNode err = read(r.body()).get("error");
        assertThat(err).isNotNull();
        assertThat(err.has("message") && err.has("type") && err.has("code") && err.has("param")).isTrue();
        return err;
    }

    @Test
    void malformedJsonIs400_API6() {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, "{\"model\":");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r).get("message").asText()).contains("not valid JSON");
    }

    @Test
    void missingFieldIs400NamingTheField_API6() {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, "{\"model\":\"mockai/x\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode err = error(r);
        assertThat(err.get("param").asText()).isEqualTo("messages");
        assertThat(err.get("message").asText()).contains("messages");

        HttpResponse<String> noModel = sluice.send("POST", "/v1/chat/completions", clientKey, "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThat(noModel.statusCode()).isEqualTo(400);
        assertThat(error(noModel).get("param").asText()).isEqualTo("model");

        HttpResponse<String> badRole = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"mockai/x\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}");
        assertThat(badRole.statusCode()).isEqualTo(400);
        assertThat(error(badRole).get("param").asText()).isEqualTo("messages[0].role");
    }

    @Test
    void unknownModelIs404ModelNotFound_API6() {
        HttpResponse<String> unknownProvider = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("nosuch/model", false));
        assertThat(unknownProvider.statusCode()).isEqualTo(404);
        assertThat(error(unknownProvider).get("code").asText()).isEqualTo("model_not_found");

        HttpResponse<String> bare = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("no-such-model", false));
        assertThat(bare.statusCode()).isEqualTo(404);
        assertThat(error(bare).get("code").asText()).isEqualTo("model_not_found");

        HttpResponse<String> noConnection = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("glm/glm-4.6", false));
        assertThat(noConnection.statusCode()).isEqualTo(404);
        assertThat(error(noConnection).get("code").asText()).isEqualTo("model_not_found");
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void everyConnectionCoolingDownIs503WithRetryAfter_API6() {
        Connection c = sluice.server.connections().list().get(0);
        long until = sluice.clock.millis() + 42_500;
        sluice.server.connections().updateState(c.id(), new ConnectionState("unavailable", until, "rate limited",
                "rate_limit_exceeded", "429", 1, 0));

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/x", false));

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).contains("43");
        assertThat(error(r).get("code").asText()).isEqualTo("all_targets_cooling_down");
        assertThat(upstream.requestCount()).isZero();

        sluice.clock.advance(Duration.ofSeconds(43));
        assertThat(sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/x", false)).statusCode()).isEqualTo(200);
    }

    @Test
    void bodyOverTheLimitIs413_API6() {
        String big = "{\"model\":\"mockai/x\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat((int) SMALL_LIMIT) + "\"}]}";
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, big);
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(error(r).get("code").asText()).isEqualTo("request_too_large");
        assertThat(upstream.requestCount()).isZero();
        // the connection stays usable: the oversized body was drained, not left half-read
        assertThat(sluice.send("GET", "/v1/models", clientKey, null).statusCode()).isEqualTo(200);
    }

    @Test
    void missingOrWrongKeyIs401_API6_SEC1() {
        HttpResponse<String> none = sluice.send("POST", "/v1/chat/completions", null, chatBody("mockai/x", false));
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(error(none).get("type").asText()).isEqualTo("authentication_error");

        HttpResponse<String> wrong = sluice.send("POST", "/v1/chat/completions", clientKey + "x", chatBody("mockai/x", false));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(error(wrong).get("code").asText()).isEqualTo("invalid_api_key");

        HttpResponse<String> models = sluice.send("GET", "/v1/models", "nope", null);
        assertThat(models.statusCode()).isEqualTo(401);
    }

    @Test
    void anthropicStyleXApiKeyHeaderAuthenticates_SEC1() {
        HttpResponse<String> r = sluice.send("GET", "/v1/models", null, null, Map.of("x-api-key", clientKey));
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void wrongMethodOnAKnownRouteIs405WithAllow() {
        HttpResponse<String> r = sluice.send("GET", "/v1/chat/completions", clientKey, null);
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).contains("POST");
        assertThat(error(r).get("code").asText()).isEqualTo("method_not_allowed");
    }

    @Test
    void anErrorAnswerToHeadHasNoBodySoTheNextAnswerOnTheConnectionIsIntact() throws Exception {
        // Claude Code probes with HEAD / at start-up; a body after a HEAD answer would be read as the next answer
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", sluice.server.port())) {
            socket.setSoTimeout(5_000);
            java.io.OutputStream out = socket.getOutputStream();
            out.write(("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nHEAD /health/live HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            String[] answers = readAnswers(socket.getInputStream(), 3);
            assertThat(answers).hasSize(3);
            assertThat(answers[0]).startsWith("HTTP/1.1 404").doesNotContain("{");
            assertThat(answers[1]).startsWith("HTTP/1.1 405").doesNotContain("{");
            assertThat(answers[2]).startsWith("HTTP/1.1 200");
        }
    }

    /** Reads {@code n} HTTP/1.1 answers (heads and Content-Length bodies) off one connection, as text. */
    private static String[] readAnswers(java.io.InputStream in, int n) throws java.io.IOException {
        StringBuilder all = new StringBuilder();
        byte[] buf = new byte[4096];
        while (true) {
            String[] parts = all.toString().split("(?=HTTP/1\\.1 )");
            if (parts.length == n && parts[n - 1].contains("\r\n\r\n")) {
                String last = parts[n - 1];
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(last);
                int body = m.find() ? Integer.parseInt(m.group(1)) : 0;
                if (last.length() - last.indexOf("\r\n\r\n") - 4 >= body) {
                    return parts;
                }
            }
            int r = in.read(buf);
            if (r < 0) {
                return all.toString().split("(?=HTTP/1\\.1 )");
            }
            all.append(new String(buf, 0, r, java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Test
    void unknownRouteIsA404Envelope() {
        HttpResponse<String> r = sluice.send("POST", "/v1/nothing-here", clientKey, "{}");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(error(r).get("code").asText()).isEqualTo("unknown_route");
    }

    @Test
    void wrongJsonTypesAre400NotServerErrors_API6() {
        for (String body : new String[] {"[]", "\"text\"", "{\"model\":5,\"messages\":[]}",
                "{\"model\":\"mockai/x\",\"messages\":\"hi\"}", "{\"model\":\"mockai/x\",\"messages\":[{\"role\":\"user\",\"content\":5}]}",
                "{\"model\":\"mockai/x\",\"stream\":\"yes\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
                "{\"model\":\"mockai/x\",\"max_tokens\":-1,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}", ""}) {
            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, body);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            error(r);
        }
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void jsonPastTheParserLimitsIs400NotA500_API6() {
        String nested = "[".repeat(1100) + "]".repeat(1100);
        HttpResponse<String> deep = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"mockai/x\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"x\":" + nested + "}");
        assertThat(deep.statusCode()).isEqualTo(400);
        error(deep);
        HttpResponse<String> admin = sluice.send("POST", "/api/providers", SluiceHarness.ADMIN_KEY, "{\"x\":" + nested + "}");
        assertThat(admin.statusCode()).isEqualTo(400);
    }

    @Test
    void modelNamesThatCannotBeRoutedOrPutInAHeaderAre400_API6() {
        HttpResponse<String> control = sluice.send("POST", "/v1/chat/completions", clientKey,
                "{\"model\":\"mockai/a\\r\\nX-Injected: 1\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        assertThat(control.statusCode()).isEqualTo(400);
        assertThat(error(control).get("param").asText()).isEqualTo("model");
        HttpResponse<String> tooLong = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/" + "m".repeat(300), false));
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(upstream.requestCount()).isZero();

        HttpResponse<String> unicode = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("mockai/模型", false));
        assertThat(unicode.statusCode()).isEqualTo(200);
        assertThat(unicode.headers().firstValue("X-Sluice-Model")).contains("%E6%A8%A1%E5%9E%8B");
    }
}
