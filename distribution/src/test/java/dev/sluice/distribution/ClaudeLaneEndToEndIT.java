package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Claude subscription account at its usage wall, through the built zip and a mock Anthropic
 * server that plays the unified rate-limit headers (SPEC §9): the client never sees the limit 429
 * while the low-priority lane serves it (OpenAI- and Anthropic-format clients), a busy slot is
 * waited out on the same account, {@code weekly_limit} cools the account and fails over, and a
 * claimed limit reset retries at full speed.
 */
class ClaudeLaneEndToEndIT {

    private static final String P = "anthropic-ratelimit-unified-";
    private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"served\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
            + "\"usage\":{\"input_tokens\":5,\"output_tokens\":2}}";
    private static final String LIMIT = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"usage limit reached\"}}";

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream anthropic;
    private MockUpstream second;
    private SluiceClient client;
    private String clientKey;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() {
        anthropic = MockUpstream.start();
        second = MockUpstream.start();
        client = new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
        clientKey = client.createKey(adminKey, "it");
    }

    @AfterEach
    void stop() {
        anthropic.close();
        second.close();
    }

    private String subscription(MockUpstream upstream, int priority, Map<String, Object> psd) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("provider", "claude");
        body.put("authType", "oauth");
        body.put("oauth", Map.of("accessToken", "sk-ant-oat01-" + UUID.randomUUID()));
        body.put("baseUrl", upstream.baseUrl());
        body.put("priority", priority);
        body.put("providerSpecificData", psd);
        return client.expect(client.post("/api/providers", adminKey, body), 201).get("id").asText();
    }

    private static String resetIn(Duration d) {
        return String.valueOf(Instant.now().plus(d).getEpochSecond());
    }

    private static MockResponse wall() {
        return MockResponse.json(429, LIMIT).header(P + "status", "rejected").header(P + "slow-offer", "treatment")
                .header(P + "reset", resetIn(Duration.ofHours(2)));
    }

    private HttpResponse<String> chat() {
        return client.post("/v1/chat/completions", clientKey, SluiceClient.chat("claude/claude-sonnet-4-5", false));
    }

    private HttpResponse<String> messages() {
        return client.post("/v1/messages", clientKey, Map.of("model", "claude/claude-sonnet-4-5", "max_tokens", 32,
                "messages", List.of(Map.of("role", "user", "content", "hi"))));
    }

    @Test
    void theClientNeverSeesTheLimitWhileTheLaneServesIt_CL1_CL2() throws Exception {
        String id = subscription(anthropic, 1, Map.of("lowPriorityMode", true));
        anthropic.enqueue(wall());
        anthropic.enqueue(MockResponse.json(200, ANSWER).header(P + "slow-status", "active"));
        anthropic.enqueue(MockResponse.json(200, ANSWER).header(P + "slow-status", "active"));

        HttpResponse<String> openAi = chat();
        assertThat(client.expect(openAi, 200).at("/choices/0/message/content").asText()).isEqualTo("served");
        HttpResponse<String> anthropicFormat = messages();
        assertThat(client.expect(anthropicFormat, 200).at("/content/0/text").asText()).isEqualTo("served");

        RecordedRequest limited = anthropic.takeRequest(Duration.ofSeconds(5));
        assertThat(limited.header("anthropic-usage-limit")).as("nothing before the first limit 429").isNull();
        assertThat(anthropic.takeRequest(Duration.ofSeconds(5)).header("anthropic-usage-limit")).isEqualTo("slow");
        assertThat(anthropic.takeRequest(Duration.ofSeconds(5)).header("anthropic-usage-limit")).as("every request of the window")
                .isEqualTo("slow");
        JsonNode row = cooldown(id);
        assertThat(row.get("testStatus").asText()).as("not cooled").isEqualTo("active");
        assertThat(row.at("/pluginState/lowPriorityLane").asText()).isEqualTo("active");
    }

    @Test
    void aBusySlotIsWaitedOutOnTheSameAccount_CL3() {
        subscription(anthropic, 1, Map.of("lowPriorityMode", true));
        String other = subscription(second, 2, Map.of());
        anthropic.enqueue(wall());
        anthropic.enqueue(MockResponse.json(429, LIMIT).header(P + "status", "rejected").header(P + "slow-status", "slot_busy")
                .header(P + "slow-retry-after", "5"));
        anthropic.enqueue(MockResponse.json(200, ANSWER));

        long started = System.nanoTime();
        HttpResponse<String> r = chat();
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(client.expect(r, 200).at("/choices/0/message/content").asText()).isEqualTo("served");
        assertThat(anthropic.requestCount()).isEqualTo(3);
        assertThat(second.requestCount()).as("not rotated away").isZero();
        assertThat(tookMs).as("waited the jittered retry-after").isGreaterThanOrEqualTo(3_400);
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).get().isNotEqualTo(other);
    }

    @Test
    void aWeeklyLimitEndsTheLaneCoolsTheAccountAndFailsOver_CL4() {
        String id = subscription(anthropic, 1, Map.of("lowPriorityMode", true));
        String other = subscription(second, 2, Map.of());
        anthropic.enqueue(wall());
        anthropic.enqueue(MockResponse.json(429, LIMIT).header(P + "status", "rejected").header(P + "slow-status", "weekly_limit")
                .header(P + "reset", resetIn(Duration.ofDays(3))));
        second.enqueue(MockResponse.json(200, ANSWER));

        HttpResponse<String> r = chat();

        assertThat(client.expect(r, 200).at("/choices/0/message/content").asText()).isEqualTo("served");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).hasValue(other);
        JsonNode row = cooldown(id);
        assertThat(row.get("testStatus").asText()).isEqualTo("unavailable");
        assertThat(row.at("/pluginState/laneLastTransition").asText()).isEqualTo("ended:weekly_limit");
    }

    @Test
    void aClaimedLimitResetRetriesAtFullSpeed_CL7() throws Exception {
        subscription(anthropic, 1, Map.of("lowPriorityMode", true, "autoLimitReset", true, "organizationUUID", "org-42"));
        anthropic.enqueue(wall());
        anthropic.enqueue(MockResponse.json(200, "{\"juniper_tide\":{\"eligible\":true,\"arm\":\"reset\",\"available\":true}}"));
        anthropic.enqueue(MockResponse.json(200, "{\"result\":\"reset\"}"));
        anthropic.enqueue(MockResponse.json(200, ANSWER));

        assertThat(client.expect(messages(), 200).at("/content/0/text").asText()).isEqualTo("served");

        anthropic.takeRequest(Duration.ofSeconds(5));
        RecordedRequest usage = anthropic.takeRequest(Duration.ofSeconds(5));
        assertThat(usage.method() + " " + usage.path()).isEqualTo("GET /api/oauth/usage?at_wall=1&skip_spend=1");
        RecordedRequest claim = anthropic.takeRequest(Duration.ofSeconds(5));
        assertThat(claim.method() + " " + claim.path()).isEqualTo("POST /api/organizations/org-42/reset_rate_limits");
        assertThat(claim.body()).isEqualTo("{\"program\":\"juniper_tide\"}");
        RecordedRequest retry = anthropic.takeRequest(Duration.ofSeconds(5));
        assertThat(retry.path()).isEqualTo("/v1/messages");
        assertThat(retry.header("anthropic-usage-limit")).as("reset: no slow header").isNull();
    }

    private JsonNode cooldown(String connectionId) {
        JsonNode data = client.expect(client.get("/api/resilience/cooldowns", adminKey), 200).get("data");
        for (JsonNode row : data) {
            if (row.get("connectionId").asText().equals(connectionId)) {
                return row;
            }
        }
        throw new AssertionError("no cooldown row for " + connectionId + ": " + data);
    }
}
