package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26 through a real Sluice and real mock upstreams: {@code proxy_logs} keeps every failed
 * attempt and a sample of successes, and {@code GET /api/logs} shows the recent requests with
 * their attempts whatever was persisted.
 */
class LogsAdminIT {

    private static final String MODEL = "mockai/gpt-x";

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream primary;
    MockUpstream secondary;
    String clientKey;
    String clientKeyId;
    String first;
    String second;

    private void start(double successSample) {
        sluice = new SluiceHarness(dir, new SluiceConfig.Observability(false, SluiceConfig.Observability.OFF).withProxyLogSuccessSample(successSample));
        HttpResponse<String> k = sluice.send("POST", "/api/keys", ADMIN_KEY, "{\"name\":\"logs-it\"}");
        clientKey = read(k.body()).get("key").asText();
        clientKeyId = read(k.body()).get("id").asText();
        first = sluice.addOpenAiCompatible("mockai", primary.baseUrl() + "/v1", 1);
        second = sluice.addOpenAiCompatible("mockai", secondary.baseUrl() + "/v1", 2);
    }

    @BeforeEach
    void upstreams() {
        primary = MockUpstream.start();
        secondary = MockUpstream.start();
    }

    @AfterEach
    void stop() {
        if (sluice != null) {
            sluice.close();
        }
        primary.close();
        secondary.close();
    }

    /** One success, then one request whose first attempt gets a 500 and fails over: their request ids. */
    private List<String> traffic() {
        primary.enqueue(MockResponse.completion("one"));
        String ok = chat(200);
        primary.enqueue(MockResponse.status(500, "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"));
        secondary.enqueue(MockResponse.completion("two"));
        String failedOver = chat(200);
        return List.of(ok, failedOver);
    }

    private String chat(int status) {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(MODEL, false));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return r.headers().firstValue("X-Request-Id").orElseThrow();
    }

    private List<ProxyLogRow> persisted() {
        assertThat(sluice.server.proxyLogWriter().flush(Duration.ofSeconds(5))).isTrue();
        return sluice.server.proxyLogs().recent(100);
    }

    private JsonNode logs(String query) {
        HttpResponse<String> r = sluice.send("GET", "/api/logs" + query, ADMIN_KEY, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body());
    }

    /** The entries of a query once both requests have finished (the answer may reach the client first). */
    private JsonNode requests(String query, int expected) {
        JsonNode[] out = new JsonNode[1];
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            out[0] = logs(query).get("requests");
            assertThat(out[0]).hasSize(expected);
        });
        return out[0];
    }

    @Test
    void withNoSampleOnlyTheFailedAttemptIsPersistedAndTheLogShowsBothRequestsWithTheirAttempts_issue26() {
        start(0);
        List<String> ids = traffic();

        assertThat(persisted()).singleElement().satisfies(row -> {
            assertThat(row.requestId()).isEqualTo(ids.get(1));
            assertThat(row.connectionId()).isEqualTo(first);
            assertThat(row.status()).isEqualTo(500);
            assertThat(row.errorType()).isEqualTo("server_error");
        });

        JsonNode requests = requests("", 2);
        JsonNode failedOver = requests.get(0);
        assertThat(failedOver.get("requestId").asText()).isEqualTo(ids.get(1));
        assertThat(failedOver.get("source").asText()).isEqualTo("recent");
        assertThat(failedOver.get("keyId").asText()).isEqualTo(clientKeyId);
        assertThat(failedOver.get("api").asText()).isEqualTo("chat_completions");
        assertThat(failedOver.get("requestedModel").asText()).isEqualTo(MODEL);
        assertThat(failedOver.get("provider").asText()).isEqualTo("mockai");
        assertThat(failedOver.get("connectionId").asText()).isEqualTo(second);
        assertThat(failedOver.get("model").asText()).isEqualTo("gpt-x");
        assertThat(failedOver.get("status").asInt()).isEqualTo(200);
        assertThat(failedOver.get("latencyMs").isIntegralNumber()).isTrue();
        assertThat(failedOver.get("attempts")).hasSize(2);
        assertThat(failedOver.at("/attempts/0/connectionId").asText()).isEqualTo(first);
        assertThat(failedOver.at("/attempts/0/status").asInt()).isEqualTo(500);
        assertThat(failedOver.at("/attempts/0/errorType").asText()).isEqualTo("server_error");
        assertThat(failedOver.at("/attempts/1/connectionId").asText()).isEqualTo(second);
        assertThat(failedOver.at("/attempts/1/status").asInt()).isEqualTo(200);
        assertThat(failedOver.at("/attempts/1/errorType").isNull()).isTrue();

        JsonNode ok = requests.get(1);
        assertThat(ok.get("requestId").asText()).isEqualTo(ids.get(0));
        assertThat(ok.get("attempts")).hasSize(1);
        assertThat(ok.at("/attempts/0/connectionId").asText()).isEqualTo(first);
    }

    @Test
    void anAttemptKeepsTheCooldownItCausedAfterTheCooldownIsCleared_issue33() {
        start(0);
        long t0 = sluice.clock.millis();
        primary.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit_error\"}}")
                .header("Retry-After", "60"));
        secondary.enqueue(MockResponse.completion("two"));
        String id = chat(200);
        // what holds the connection now is cleared; the attempt's row still says what it caused then
        assertThat(sluice.send("POST", "/api/resilience/cooldowns", ADMIN_KEY, "{\"all\":true}").statusCode()).isEqualTo(200);

        JsonNode entry = requests("", 1).get(0);
        assertThat(entry.get("requestId").asText()).isEqualTo(id);
        JsonNode effect = entry.at("/attempts/0/effect");
        assertThat(effect.get("kind").asText()).isEqualTo("cooldown");
        assertThat(effect.get("reason").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(effect.get("untilMs").asLong()).isEqualTo(t0 + 60_000);
        assertThat(effect.get("until").asText()).isEqualTo(java.time.Instant.ofEpochMilli(t0 + 60_000).toString());
        assertThat(entry.at("/attempts/1/effect").isNull()).as("a served attempt caused nothing").isTrue();
        assertThat(persisted()).singleElement().satisfies(row -> assertThat(row.effect())
                .isEqualTo(new ProxyLogRow.Effect("cooldown", t0 + 60_000, "rate_limit_exceeded")));
    }

    @Test
    void anAttemptKeepsTheModelLockoutItCaused_issue33() {
        start(0);
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"modelLockout\":{\"enabled\":true}}").statusCode()).isEqualTo(200);
        long t0 = sluice.clock.millis();
        // with lockout on, a 503 locks the exact model on that connection (resilience.md §4)
        primary.enqueue(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}"));
        secondary.enqueue(MockResponse.completion("two"));
        chat(200);

        JsonNode effect = requests("", 1).get(0).at("/attempts/0/effect");
        assertThat(effect.get("kind").asText()).isEqualTo("model_lockout");
        assertThat(effect.get("reason").asText()).isEqualTo(read(sluice.send("GET", "/api/resilience/model-cooldowns", ADMIN_KEY, null)
                .body()).at("/data/0/reason").asText());
        assertThat(effect.get("untilMs").asLong()).isEqualTo(t0 + 120_000);
    }

    @Test
    void withASampleOfOneEverySuccessIsPersisted_issue26() {
        start(1);
        List<String> ids = traffic();
        assertThat(persisted()).extracting(ProxyLogRow::requestId).containsExactly(ids.get(1), ids.get(1), ids.get(0));
    }

    @Test
    void filtersNarrowTheEntries_issue26() {
        start(0);
        List<String> ids = traffic();
        primary.enqueue(MockResponse.status(400, "{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}"));
        String refused = chat(400);
        requests("", 3);

        assertThat(requests("?status=4xx", 1).get(0).get("requestId").asText()).isEqualTo(refused);
        assertThat(requests("?status=400", 1).get(0).get("requestId").asText()).isEqualTo(refused);
        assertThat(requests("?status=2xx&limit=1", 1).get(0).get("requestId").asText()).isEqualTo(ids.get(1));
        assertThat(logs("?status=2xx&limit=1").get("more").asBoolean()).isTrue();
        assertThat(requests("?status=5xx", 0)).isEmpty();
        assertThat(requests("?provider=mockai&model=gpt-x&key=" + clientKeyId, 3)).hasSize(3);
        assertThat(requests("?provider=other", 0)).isEmpty();
        assertThat(requests("?model=" + MODEL, 3)).hasSize(3);
        assertThat(requests("?key=someone-else", 0)).isEmpty();
        assertThat(requests("?to=2000-01-01", 0)).isEmpty();
        assertThat(requests("?from=" + (sluice.clock.millis() - 1) + "&to=" + (sluice.clock.millis() + 1), 3)).hasSize(3);
    }

    @Test
    void badFiltersAreRefusedNamingTheParameter_issue26() {
        start(0);
        for (String[] bad : new String[][] {{"status=9xx", "status"}, {"status=ok", "status"}, {"status=600", "status"},
                {"limit=0", "limit"}, {"limit=1001", "limit"}, {"limit=many", "limit"}, {"from=yesterday", "from"},
                {"to=2026-13-01", "to"}, {"from=2000&to=1000", "from"}}) {
            HttpResponse<String> r = sluice.send("GET", "/api/logs?" + bad[0], ADMIN_KEY, null);
            assertThat(r.statusCode()).as(bad[0]).isEqualTo(400);
            assertThat(read(r.body()).at("/error/param").asText()).as(bad[0]).isEqualTo(bad[1]);
        }
    }

    @Test
    void theLogIsForTheAdminKeyOnly_issue26() {
        start(0);
        assertThat(sluice.send("GET", "/api/logs", null, null).statusCode()).isEqualTo(401);
        assertThat(sluice.send("GET", "/api/logs", clientKey, null).statusCode()).isEqualTo(403);
        assertThat(sluice.send("POST", "/api/logs", ADMIN_KEY, "{}").statusCode()).isEqualTo(405);
    }
}
