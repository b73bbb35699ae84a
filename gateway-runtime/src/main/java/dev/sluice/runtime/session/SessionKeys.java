package dev.sluice.runtime.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.security.KeyHasher;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request's session key (SPEC SA-1), first match wins: the headers {@code x-codex-session-id},
 * {@code X-Session-Id}, {@code x-sluice-session}, {@code x-omniroute-session}, {@code x-session-affinity}
 * (opencode sends it with {@code X-Session-Id}); the body's
 * {@code metadata.session_id}, {@code metadata.sessionId}, {@code conversation_id},
 * {@code session_id}, {@code prompt_cache_key} (Codex), and the session id inside Claude Code's
 * {@code metadata.user_id} (a JSON string with {@code session_id} in Claude Code 2, or
 * {@code …_session_<uuid>} before). Only the key's SHA-256 is kept, logged or stored.
 */
public final class SessionKeys {

    /** The session headers, in the order they are read; never forwarded upstream (SA-3). */
    public static final List<String> HEADERS = List.of("x-codex-session-id", "x-session-id", "x-sluice-session", "x-omniroute-session",
            "x-session-affinity");

    private static final int MAX_KEY_CHARS = 1024;
    private static final Pattern CLAUDE_SESSION = Pattern.compile("_session_([0-9A-Za-z-]{8,64})");
    private static final ObjectMapper MAPPER = dev.sluice.runtime.io.JsonMappers.create();

    private SessionKeys() {
    }

    /**
     * The session key's hash, or null when the request names no session.
     *
     * @param header a request header by lower-case name, or null
     * @param body the request body, or null
     * @return {@code sha256:<hex>} of the namespaced key, or null
     */
    public static String of(Function<String, String> header, JsonNode body) {
        for (String name : HEADERS) {
            String v = usable(header.apply(name));
            if (v != null) {
                return hash("header:" + v);
            }
        }
        if (body == null || !body.isObject()) {
            return null;
        }
        JsonNode metadata = body.path("metadata");
        for (JsonNode n : List.of(metadata.path("session_id"), metadata.path("sessionId"), body.path("conversation_id"),
                body.path("session_id"), body.path("prompt_cache_key"))) {
            String v = n.isTextual() ? usable(n.asText()) : null;
            if (v != null) {
                return hash("body:" + v);
            }
        }
        String claude = claudeCodeSession(metadata.path("user_id"));
        return claude == null ? null : hash("claude-code:" + claude);
    }

    /** The session id in Claude Code's {@code metadata.user_id}, or null. */
    static String claudeCodeSession(JsonNode userId) {
        if (!userId.isTextual()) {
            return null;
        }
        String v = userId.asText();
        if (v.startsWith("{")) {
            try {
                JsonNode tree = MAPPER.readTree(v);
                return tree.path("session_id").isTextual() ? usable(tree.path("session_id").asText()) : null;
            } catch (IOException e) {
                return null;
            }
        }
        Matcher m = CLAUDE_SESSION.matcher(v);
        return m.find() ? m.group(1) : null;
    }

    private static String usable(String v) {
        if (v == null) {
            return null;
        }
        String s = v.strip();
        return s.isEmpty() || s.length() > MAX_KEY_CHARS ? null : s;
    }

    /**
     * The SHA-256 of a text, as {@code sha256:<hex>}.
     *
     * @param text the text
     * @return the hash
     */
    public static String hash(String text) {
        return "sha256:" + KeyHasher.hash(text);
    }
}
