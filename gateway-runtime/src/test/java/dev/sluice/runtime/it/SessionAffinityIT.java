package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Session affinity (SPEC SA-1…SA-3) through a real server: two equal connections on two mocks; a
 * session is pinned to the least recently used one, stays there across requests and a restart,
 * moves on failover and stays moved, and TTL 0 is plain priority order.
 */
class SessionAffinityIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream a;
    MockUpstream b;
    String idA;
    String idB;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        a = MockUpstream.start().setDefault(MockResponse.completion("from-a"));
        b = MockUpstream.start().setDefault(MockResponse.completion("from-b"));
        idA = sluice.addOpenAiCompatible("alpha", a.baseUrl() + "/v1", 1);
        idB = sluice.addConnection("{\"provider\":\"alpha\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-b-123456\",\"baseUrl\":\""
                + b.baseUrl() + "/v1\",\"priority\":1}");
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        a.close();
        b.close();
    }

    private void ttl(long ms) {
        HttpResponse<String> r = sluice.send("PATCH", "/api/settings", ADMIN_KEY, "{\"sessionAffinityTtlMs\":" + ms + "}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(read(r.body()).get("sessionAffinityTtlMs").asLong()).isEqualTo(ms);
    }

    /** Which mock answered a chat of this session (by header), or null for none. */
    private String chat(String session) {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", false),
                session == null ? Map.of() : Map.of("X-Session-Id", session));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body()).at("/choices/0/message/content").asText();
    }

    @Test
    void withTtlZeroEveryRequestTakesPlainPriorityOrder() {
        assertThat(chat("s1")).isEqualTo("from-a");
        assertThat(chat("s2")).isEqualTo("from-a");
        assertThat(chat(null)).isEqualTo("from-a");
        assertThat(read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).get("pins")).isEmpty();
    }

    @Test
    void sessionsSpreadOverEqualConnectionsAndStayPutAcrossRequestsAndARestart_SA1_SA2() {
        ttl(600_000);
        assertThat(chat("s1")).isEqualTo("from-a");
        assertThat(chat("s2")).as("the least recently used connection of the best tier").isEqualTo("from-b");
        for (int i = 0; i < 3; i++) {
            assertThat(chat("s1")).isEqualTo("from-a");
            assertThat(chat("s2")).isEqualTo("from-b");
        }
        assertThat(b.requests()).allSatisfy(r -> assertThat(r.headers().keySet()).as("SA-3: never forwarded")
                .noneMatch(h -> h.equalsIgnoreCase("x-session-id")));
        JsonNode pins = read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).get("pins");
        assertThat(pins).hasSize(2);
        assertThat(pins.toString()).as("only the key's hash").doesNotContain("\"s1\"").contains("sha256:");

        sluice.close();
        sluice = new SluiceHarness(dir);

        // a fresh process knows no last use: without the stored pin s2 would go to the first connection
        assertThat(chat("s2")).isEqualTo("from-b");
        assertThat(chat("s1")).isEqualTo("from-a");
    }

    @Test
    void aSessionMovesOnFailoverAndStaysMovedAfterTheOldConnectionHeals_SA1() {
        ttl(3_600_000);
        assertThat(chat("s1")).isEqualTo("from-a");
        assertThat(chat("s2")).isEqualTo("from-b");
        b.enqueue(MockResponse.json(503, "{\"error\":{\"message\":\"overloaded\"}}"));

        assertThat(chat("s2")).as("failed over").isEqualTo("from-a");
        // b is cooling; once it heals, s2 stays where it was served
        sluice.clock.advance(Duration.ofMinutes(10));
        assertThat(sluice.send("POST", "/api/resilience/cooldowns", ADMIN_KEY, "{\"all\":true}").statusCode()).isEqualTo(200);
        int before = b.requestCount();
        assertThat(chat("s2")).isEqualTo("from-a");
        assertThat(chat("s2")).isEqualTo("from-a");
        assertThat(b.requestCount()).isEqualTo(before);
    }

    @Test
    void codexClaudeCodeAndBodyKeysAreRecognised_SA1() {
        ttl(600_000);
        // the first request of each session takes the connection used least recently
        assertThat(chat("warm")).isEqualTo("from-a");
        HttpResponse<String> codex = sluice.send("POST", "/v1/responses", key,
                "{\"model\":\"alpha/m\",\"input\":\"hi\",\"prompt_cache_key\":\"conv-1\"}");
        assertThat(codex.statusCode()).as(codex.body()).isEqualTo(200);
        assertThat(read(codex.body()).at("/output/0/content/0/text").asText()).isEqualTo("from-b");
        String claudeBody = "{\"model\":\"alpha/m\",\"max_tokens\":10,\"metadata\":{\"user_id\":\"{\\\"device_id\\\":\\\"d\\\","
                + "\\\"account_uuid\\\":\\\"\\\",\\\"session_id\\\":\\\"36483df7-4303-4a46-a642-14dd665d28dc\\\"}\"},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        HttpResponse<String> claude = sluice.send("POST", "/v1/messages", key, claudeBody);
        assertThat(claude.statusCode()).as(claude.body()).isEqualTo(200);
        String first = read(claude.body()).at("/content/0/text").asText();
        for (int i = 0; i < 3; i++) {
            assertThat(read(sluice.send("POST", "/v1/messages", key, claudeBody).body()).at("/content/0/text").asText()).isEqualTo(first);
            assertThat(read(sluice.send("POST", "/v1/responses", key, "{\"model\":\"alpha/m\",\"input\":\"again\","
                    + "\"prompt_cache_key\":\"conv-1\"}").body()).at("/output/0/content/0/text").asText()).isEqualTo("from-b");
        }
        assertThat(read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).get("pins")).hasSize(3);
    }

    @Test
    void theAdminClearsPinsAndHealthCountsThem() {
        ttl(600_000);
        chat("s1");
        chat("s2");
        assertThat(read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body()).at("/sessions/pins").asInt()).isEqualTo(2);
        HttpResponse<String> r = sluice.send("DELETE", "/api/sessions/pins?connectionId=" + idB, ADMIN_KEY, null);
        assertThat(read(r.body()).get("removed").asInt()).isEqualTo(1);
        assertThat(read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).get("pins")).hasSize(1);
        assertThat(sluice.send("PATCH", "/api/settings", ADMIN_KEY, "{\"sessionAffinityTtlMs\":-1}").statusCode()).isEqualTo(400);
    }

    @Test
    void aPinNotSeenForTheTtlIsGone_SA2() {
        ttl(60_000);
        assertThat(chat("s1")).isEqualTo("from-a");
        assertThat(chat("s2")).isEqualTo("from-b");
        sluice.clock.advance(Duration.ofSeconds(61));
        assertThat(read(sluice.send("GET", "/api/sessions", ADMIN_KEY, null).body()).get("pins")).isEmpty();
    }
}
