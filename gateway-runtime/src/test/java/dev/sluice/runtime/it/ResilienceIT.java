package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resilience engine end to end: a real Sluice server with a test clock, real mock upstreams on
 * loopback, and only the HTTP contracts of the spec (§3 AD-2, §6, §8, §11, CO-5).
 */
class ResilienceIT {

    private static final String SERVER_ERROR = "{\"error\":{\"message\":\"upstream unavailable\",\"type\":\"server_error\"}}";

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream a;
    MockUpstream b;
    String clientKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        a = MockUpstream.start();
        b = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        a.close();
        b.close();
    }

    private HttpResponse<String> chat(String model) {
        return sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(model, false));
    }

    private JsonNode admin(String method, String path, String body) {
        HttpResponse<String> r = sluice.send(method, path, ADMIN_KEY, body);
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(200);
        return read(r.body());
    }

    private JsonNode cooldownOf(String connectionId) {
        for (JsonNode c : admin("GET", "/api/resilience/cooldowns", null).get("data")) {
            if (c.get("connectionId").asText().equals(connectionId)) {
                return c;
            }
        }
        throw new AssertionError("connection " + connectionId + " not listed");
    }

    private JsonNode breakerOf(String provider) {
        for (JsonNode br : admin("GET", "/api/monitoring/health", null).get("providerBreakers")) {
            if (br.get("provider").asText().equals(provider)) {
                return br;
            }
        }
        throw new AssertionError("provider " + provider + " not listed");
    }

    @Test
    void keyAnswering429WithRetryAfter7IsSkippedFor7SecondsWhileTheSecondKeyServes_CC2_BO2() {
        String first = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        String second = sluice.addOpenAiCompatible("mockai", b.baseUrl() + "/v1", 2);
        a.enqueue(MockResponse.json(429, "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\","
                + "\"code\":\"rate_limit_exceeded\"}}").header("Retry-After", "7"));
        a.setDefault(MockResponse.completion("from a"));
        b.setDefault(MockResponse.completion("from b"));

        HttpResponse<String> r1 = chat("mockai/gpt-x");
        assertThat(r1.statusCode()).isEqualTo(200);
        assertThat(r1.headers().firstValue("X-Sluice-Connection-Id")).contains(second);
        JsonNode cooling = cooldownOf(first);
        assertThat(cooling.get("testStatus").asText()).isEqualTo("unavailable");
        assertThat(cooling.get("remainingMs").asLong()).isEqualTo(7_000);
        assertThat(cooling.get("backoffLevel").asInt()).isEqualTo(1);
        assertThat(cooling.get("lastErrorType").asText()).isEqualTo("rate_limit_exceeded");

        sluice.clock.advance(Duration.ofMillis(6_999));
        HttpResponse<String> r2 = chat("mockai/gpt-x");
        assertThat(r2.headers().firstValue("X-Sluice-Connection-Id")).contains(second);
        assertThat(a.requestCount()).isEqualTo(1);

        sluice.clock.advance(Duration.ofMillis(1));
        HttpResponse<String> r3 = chat("mockai/gpt-x");
        assertThat(r3.headers().firstValue("X-Sluice-Connection-Id")).contains(first);
        assertThat(a.requestCount()).isEqualTo(2);
        // CC-7: the success cleared every error field
        JsonNode healed = cooldownOf(first);
        assertThat(healed.get("testStatus").asText()).isEqualTo("active");
        assertThat(healed.get("backoffLevel").asInt()).isZero();
        assertThat(healed.get("lastErrorType").isNull()).isTrue();
    }

    @Test
    void twelve503sOpenTheBreakerAndAfterTheResetTimeoutOneProbeGoesThrough_CB2_CB6_CB7() {
        sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.setDefault(MockResponse.status(503, SERVER_ERROR));
        for (int i = 1; i <= 12; i++) {
            HttpResponse<String> r = chat("mockai/gpt-x");
            assertThat(r.statusCode()).as("attempt " + i).isEqualTo(503);
            assertThat(breakerOf("mockai").get("state").asText()).isEqualTo(i >= 12 ? "OPEN" : i >= 7 ? "DEGRADED" : "CLOSED");
            // CB-4: failures of one connection within 5 s count once
            sluice.clock.advance(Duration.ofMillis(5_001));
        }
        JsonNode open = breakerOf("mockai");
        assertThat(open.get("failureCount").asInt()).isEqualTo(12);
        assertThat(open.get("retryAfterMs").asLong()).isEqualTo(30_000 - 5_001);
        assertThat(a.requestCount()).isEqualTo(12);

        // OPEN: nothing goes upstream; the client learns which mechanism and for how long (CO-5)
        HttpResponse<String> held = chat("mockai/gpt-x");
        assertThat(held.statusCode()).isEqualTo(503);
        JsonNode body = read(held.body());
        assertThat(body.at("/error/code").asText()).isEqualTo("all_targets_cooling_down");
        assertThat(held.headers().firstValue("Retry-After")).contains("25");
        assertThat(body.at("/error/diagnostics/excluded/0/reason").asText()).isEqualTo("circuit_open");
        assertThat(body.at("/error/diagnostics/excluded/0/target").asText()).isEqualTo("mockai/gpt-x");
        assertThat(body.has("diagnostics")).as("one diagnostics block, in the error (issue 27)").isFalse();
        assertThat(a.requestCount()).isEqualTo(12);

        // after the reset timeout one probe goes through and closes the breaker
        sluice.clock.advance(Duration.ofMillis(30_000 - 5_001));
        a.setDefault(MockResponse.completion("recovered"));
        HttpResponse<String> probe = chat("mockai/gpt-x");
        assertThat(probe.statusCode()).isEqualTo(200);
        assertThat(a.requestCount()).isEqualTo(13);
        assertThat(breakerOf("mockai").get("state").asText()).isEqualTo("CLOSED");
        assertThat(breakerOf("mockai").get("failureCount").asInt()).isZero();
    }

    @Test
    void resetClosesAnOpenBreaker_CB7() {
        sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.setDefault(MockResponse.status(502, SERVER_ERROR));
        for (int i = 0; i < 12; i++) {
            chat("mockai/gpt-x");
            sluice.clock.advance(Duration.ofMillis(5_001));
        }
        assertThat(breakerOf("mockai").get("state").asText()).isEqualTo("OPEN");
        assertThat(admin("POST", "/api/resilience/reset", "{\"provider\":\"mockai\"}").get("reset").asInt()).isEqualTo(1);
        assertThat(breakerOf("mockai").get("state").asText()).isEqualTo("CLOSED");
        a.setDefault(MockResponse.completion("ok"));
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(200);
    }

    @Test
    void a404LocksOnlyThatModelWhileAnotherModelOnTheSameConnectionKeepsWorking_ML1_ML5() {
        String conn = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        JsonNode patched = admin("PATCH", "/api/resilience", "{\"modelLockout\":{\"enabled\":true}}");
        assertThat(patched.at("/modelLockout/enabled").asBoolean()).isTrue();
        a.enqueue(MockResponse.json(404, "{\"error\":{\"message\":\"The model `gone-model` does not exist\",\"type\":\"invalid_request_error\","
                + "\"code\":\"model_not_found\"}}"));
        a.setDefault(MockResponse.completion("fine"));

        assertThat(chat("mockai/gone-model").statusCode()).isEqualTo(404);
        HttpResponse<String> locked = chat("mockai/gone-model");
        assertThat(locked.statusCode()).isEqualTo(503);
        assertThat(read(locked.body()).at("/error/diagnostics/excluded/0/reason").asText()).isEqualTo("model_lockout");
        assertThat(a.requestCount()).isEqualTo(1);

        HttpResponse<String> other = chat("mockai/other-model");
        assertThat(other.statusCode()).isEqualTo(200);
        assertThat(other.headers().firstValue("X-Sluice-Connection-Id")).contains(conn);

        JsonNode lockouts = admin("GET", "/api/resilience/model-cooldowns", null).get("data");
        assertThat(lockouts).hasSize(1);
        assertThat(lockouts.get(0).get("model").asText()).isEqualTo("gone-model");
        assertThat(lockouts.get(0).get("connectionId").asText()).isEqualTo(conn);
        assertThat(lockouts.get(0).get("reason").asText()).isEqualTo("not_found");
        assertThat(lockouts.get(0).get("remainingMs").asLong()).isEqualTo(120_000);
        assertThat(cooldownOf(conn).get("modelLockouts").get(0).get("model").asText()).isEqualTo("gone-model");
        // the connection itself never cooled: separate scopes
        assertThat(cooldownOf(conn).get("testStatus").asText()).isEqualTo("active");

        admin("DELETE", "/api/resilience/model-cooldowns", "{\"provider\":\"mockai\",\"connection\":\"" + conn + "\",\"model\":\"gone-model\"}");
        assertThat(chat("mockai/gone-model").statusCode()).isEqualTo(200);
    }

    @Test
    void withLockoutOffByDefaultA404LocksNothing_ML2() {
        sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.enqueue(MockResponse.json(404, "{\"error\":{\"message\":\"no such model\",\"code\":\"model_not_found\"}}"));
        a.setDefault(MockResponse.completion("fine"));
        assertThat(chat("mockai/gone-model").statusCode()).isEqualTo(404);
        assertThat(chat("mockai/gone-model").statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/api/resilience/model-cooldowns", null).get("data")).isEmpty();
    }

    @Test
    void concurrencyLimit429FailsOverAtOnceWithoutRaisingBackoff_CC4() {
        String first = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        String second = sluice.addOpenAiCompatible("mockai", b.baseUrl() + "/v1", 2);
        a.enqueue(MockResponse.json(429, "{\"error\":{\"code\":\"1302\",\"message\":\"您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。\"}}"));
        b.setDefault(MockResponse.completion("from b"));

        HttpResponse<String> r = chat("mockai/glm-4.6");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(second);
        JsonNode busy = cooldownOf(first);
        assertThat(busy.get("backoffLevel").asInt()).isZero();
        assertThat(busy.get("remainingMs").asLong()).isEqualTo(1_000);
        assertThat(busy.get("lastErrorType").asText()).isEqualTo("concurrency_limited");
        assertThat(breakerOf("mockai").get("failureCount").asInt()).isZero();
    }

    @Test
    void allKeysCoolingAnswers503WithRetryAfterAndDiagnostics_CO5() {
        String first = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.enqueue(MockResponse.json(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "9"));
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(429);
        HttpResponse<String> r = chat("mockai/gpt-x");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).contains("9");
        JsonNode x = read(r.body()).at("/error/diagnostics/excluded/0");
        assertThat(x.get("reason").asText()).isEqualTo("unavailable");
        assertThat(x.get("connectionId").asText()).isEqualTo(first);
        assertThat(x.get("secondsLeft").asLong()).isEqualTo(9);
        assertThat(a.requestCount()).isEqualTo(1);
    }

    @Test
    void terminalOnlyProviderAnswers404NoExecutableTargets_CO5_CC6() {
        String conn = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.enqueue(MockResponse.json(401, "{\"error\":{\"message\":\"Your account has been deactivated\",\"code\":\"account_deactivated\"}}"));
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(401);
        assertThat(cooldownOf(conn).get("testStatus").asText()).isEqualTo("banned");
        HttpResponse<String> r = chat("mockai/gpt-x");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("no_executable_targets");
        // CC-8: terminal states are listed but never cleared by the cooldown manager
        JsonNode cleared = admin("POST", "/api/resilience/cooldowns", "{\"all\":true}");
        assertThat(cleared.get("skippedTerminal").get(0).asText()).isEqualTo(conn);
        assertThat(cleared.get("cleared")).isEmpty();
    }

    @Test
    void anOperatorReactivatesACreditsExhaustedConnectionOnceItsCreditIsRefilled_issue27() {
        String conn = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.enqueue(MockResponse.json(402, "{\"error\":{\"message\":\"Your credit balance is too low\"}}"));
        a.setDefault(MockResponse.completion("refilled"));
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(402);
        assertThat(cooldownOf(conn).get("testStatus").asText()).isEqualTo("credits_exhausted");
        HttpResponse<String> outOfCredit = chat("mockai/gpt-x");
        assertThat(outOfCredit.statusCode()).isEqualTo(404);
        JsonNode noOne = read(outOfCredit.body());
        assertThat(noOne.at("/error/code").asText()).isEqualTo("no_executable_targets");
        assertThat(noOne.at("/error/diagnostics/excluded/0/reason").asText()).isEqualTo("terminal");
        assertThat(outOfCredit.body().split("\"diagnostics\"", -1)).as("one diagnostics block (issue 27)").hasSize(2);

        HttpResponse<String> bad = sluice.send("POST", "/api/resilience/cooldowns", ADMIN_KEY,
                "{\"connectionIds\":[\"" + conn + "\"],\"reactivate\":\"yes\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(read(bad.body()).at("/error/param").asText()).isEqualTo("reactivate");
        JsonNode out = admin("POST", "/api/resilience/cooldowns", "{\"connectionIds\":[\"" + conn + "\"],\"reactivate\":true}");
        assertThat(out.get("reactivated").get(0).asText()).isEqualTo(conn);
        assertThat(out.get("skippedTerminal")).isEmpty();
        assertThat(cooldownOf(conn).get("testStatus").asText()).isEqualTo("active");
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(200);
    }

    @Test
    void cooldownManagerClearsCooldownsAndLockouts_CC8() {
        String first = sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        a.enqueue(MockResponse.json(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "60"));
        a.setDefault(MockResponse.completion("ok"));
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(429);
        JsonNode out = admin("POST", "/api/resilience/cooldowns", "{\"connectionIds\":[\"" + first + "\"]}");
        assertThat(out.get("cleared").get(0).asText()).isEqualTo(first);
        assertThat(out.get("lockoutsCleared").asInt()).isZero();
        assertThat(chat("mockai/gpt-x").statusCode()).isEqualTo(200);
        HttpResponse<String> bad = sluice.send("POST", "/api/resilience/cooldowns", ADMIN_KEY, "{}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(read(bad.body()).at("/error/param").asText()).isEqualTo("connectionIds");
    }

    @Test
    void healthViewHasTheAd2Shape_AD2() {
        sluice.addOpenAiCompatible("mockai", a.baseUrl() + "/v1", 1);
        JsonNode health = admin("GET", "/api/monitoring/health", null);
        assertThat(health.get("status").asText()).isEqualTo("healthy");
        assertThat(health.at("/connections/total").asInt()).isEqualTo(1);
        assertThat(health.at("/connections/cooling").asInt()).isZero();
        assertThat(health.at("/connections/terminal").asInt()).isZero();
        assertThat(health.get("lockouts").asInt()).isZero();
        JsonNode br = breakerOf("mockai");
        assertThat(br.get("state").asText()).isEqualTo("CLOSED");
        assertThat(br.has("failureCount") && br.has("lastFailureAt") && br.has("retryAfterMs")).isTrue();
        assertThat(sluice.send("GET", "/api/monitoring/health", clientKey, null).statusCode()).isEqualTo(403);
    }
}
