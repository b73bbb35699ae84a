package dev.sluice.plugin.codex;

import dev.sluice.toolkit.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * The claims of an OpenAI token, read as Codex's {@code token_data.rs} reads them: the JWT's
 * payload, base64url without padding, unverified (the token came from the token endpoint over
 * TLS, or from the operator's own file; the backend verifies it). ChatGPT's facts sit in the
 * namespaced object {@code "https://api.openai.com/auth"} ({@code chatgpt_account_id},
 * {@code chatgpt_plan_type}), the e-mail at the top level or in {@code "https://api.openai.com/profile"}.
 */
record JwtClaims(Map<String, Object> payload) {

    /** The claim namespace holding the ChatGPT account facts ({@code AuthClaims}). */
    static final String AUTH = "https://api.openai.com/auth";
    /** The claim namespace holding the profile ({@code ProfileClaims}). */
    static final String PROFILE = "https://api.openai.com/profile";
    /** No claims: what an absent or unreadable token gives. */
    static final JwtClaims NONE = new JwtClaims(Map.of());

    JwtClaims {
        payload = Map.copyOf(payload);
    }

    /**
     * Reads a token's claims.
     *
     * @param jwt the token, or null
     * @return the claims; {@link #NONE} when it is not a three-part JWT with a JSON object payload
     */
    static JwtClaims of(String jwt) {
        if (jwt == null) {
            return NONE;
        }
        String[] parts = jwt.split("\\.", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
            return NONE;
        }
        try {
            String json = new String(Base64.getUrlDecoder().decode(stripPadding(parts[1])), StandardCharsets.UTF_8);
            return new JwtClaims(withoutNulls(Json.parseObject(json)));
        } catch (IllegalArgumentException e) { // bad base64, or JsonException
            return NONE;
        }
    }

    /** {@code chatgpt_account_id}: the workspace the requests are billed to, sent as {@code ChatGPT-Account-ID}. */
    String accountId() {
        return Json.string(Json.object(payload, AUTH), "chatgpt_account_id");
    }

    /** {@code chatgpt_plan_type} ({@code free}, {@code plus}, {@code pro}, {@code team} …). */
    String plan() {
        return Json.string(Json.object(payload, AUTH), "chatgpt_plan_type");
    }

    /** {@code email}, else the profile's. */
    String email() {
        String top = Json.string(payload, "email");
        return top != null ? top : Json.string(Json.object(payload, PROFILE), "email");
    }

    /** {@code exp} in epoch ms, or null. */
    Long expiresAtMillis() {
        Long exp = Json.number(payload, "exp");
        return exp == null || exp <= 0 ? null : exp * 1000L;
    }

    private static String stripPadding(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == '=') {
            end--;
        }
        return s.substring(0, end);
    }

    /** Map.copyOf refuses null values, which a JSON payload may hold; a null claim is an absent one. */
    private static Map<String, Object> withoutNulls(Map<String, Object> m) {
        Map<String, Object> copy = new java.util.LinkedHashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                copy.put(k, v);
            }
        });
        return copy;
    }
}
