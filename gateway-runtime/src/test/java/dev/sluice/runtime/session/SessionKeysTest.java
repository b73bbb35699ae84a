package dev.sluice.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The session key of a request (SPEC SA-1): headers first, then the body's fields, then Claude Code's user id. */
class SessionKeysTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String key(Map<String, String> headers, String body) throws Exception {
        JsonNode tree = body == null ? null : JSON.readTree(body);
        return SessionKeys.of(headers::get, tree);
    }

    @Test
    void theFirstMatchWinsAndOnlyAHashIsKept() throws Exception {
        String codex = key(Map.of("x-codex-session-id", "c1", "x-session-id", "s1"), "{\"session_id\":\"b\"}");
        assertThat(codex).isEqualTo(SessionKeys.hash("header:c1")).startsWith("sha256:").doesNotContain("c1");
        assertThat(key(Map.of("x-sluice-session", "x"), null)).isEqualTo(SessionKeys.hash("header:x"));
        assertThat(key(Map.of(), "{\"metadata\":{\"sessionId\":\"m\"},\"prompt_cache_key\":\"p\"}")).isEqualTo(SessionKeys.hash("body:m"));
        assertThat(key(Map.of(), "{\"prompt_cache_key\":\"p\"}")).isEqualTo(SessionKeys.hash("body:p"));
        assertThat(key(Map.of(), "{\"messages\":[]}")).isNull();
        assertThat(key(Map.of("x-session-id", "  "), "{\"conversation_id\":\"\"}")).as("blank is no session").isNull();
    }

    @Test
    void claudeCodeSessionsAreFoundInBothUserIdForms() throws Exception {
        String v2 = "{\"metadata\":{\"user_id\":\"{\\\"device_id\\\":\\\"d\\\",\\\"account_uuid\\\":\\\"\\\","
                + "\\\"session_id\\\":\\\"36483df7-4303-4a46-a642-14dd665d28dc\\\"}\"}}";
        String v1 = "{\"metadata\":{\"user_id\":\"user_abc_account_x_session_36483df7-4303-4a46-a642-14dd665d28dc\"}}";
        assertThat(key(Map.of(), v2)).isEqualTo(SessionKeys.hash("claude-code:36483df7-4303-4a46-a642-14dd665d28dc"));
        assertThat(key(Map.of(), v1)).isEqualTo(key(Map.of(), v2));
        assertThat(key(Map.of(), "{\"metadata\":{\"user_id\":\"plain-user\"}}")).isNull();
    }
}
