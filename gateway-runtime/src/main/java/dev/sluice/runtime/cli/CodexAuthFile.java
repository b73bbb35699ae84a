package dev.sluice.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Codex CLI's {@code ~/.codex/auth.json} ({@code AuthDotJson} of openai/codex
 * {@code codex-rs/login/src/auth/storage.rs}): {@code OPENAI_API_KEY}, {@code tokens} with
 * {@code id_token}, {@code access_token}, {@code refresh_token} and {@code account_id}, and
 * {@code last_refresh}. The account (id, e-mail, plan) is read from the id token's claims as
 * Codex's {@code token_data.rs} reads them, and the expiry from the access token's {@code exp},
 * so the imported connection sends the same {@code ChatGPT-Account-ID} a login would.
 */
final class CodexAuthFile {

    /** The claim namespace holding ChatGPT's account facts. */
    private static final String AUTH = "https://api.openai.com/auth";

    private CodexAuthFile() {
    }

    /**
     * Fills the connection body from the file.
     *
     * @param root the parsed file
     * @param file its path, for the message
     * @param body the connection body ({@code providerSpecificData} is added)
     * @param oauth its {@code oauth} member
     * @throws AdminClient.Failure when the file holds no ChatGPT login
     */
    static void fill(JsonNode root, Path file, ObjectNode body, ObjectNode oauth) throws AdminClient.Failure {
        JsonNode tokens = root == null ? null : root.path("tokens");
        if (tokens == null || !tokens.path("access_token").isTextual() || tokens.path("access_token").asText().isBlank()) {
            if (root != null && root.path("OPENAI_API_KEY").isTextual()) {
                throw new AdminClient.Failure("import: " + file + " holds an API key, not a ChatGPT login (no tokens);"
                        + " add the key as an openai connection instead");
            }
            throw new AdminClient.Failure("import: " + file + " has no tokens.access_token (not a Codex auth.json)");
        }
        String access = tokens.path("access_token").asText();
        oauth.put("accessToken", access);
        if (tokens.path("refresh_token").isTextual() && !tokens.path("refresh_token").asText().isBlank()) {
            oauth.put("refreshToken", tokens.path("refresh_token").asText());
        }
        JsonNode accessClaims = claims(access);
        if (accessClaims.path("exp").canConvertToLong() && accessClaims.path("exp").asLong() > 0) {
            oauth.put("expiresAt", accessClaims.path("exp").asLong() * 1000L);
        }
        JsonNode id = claims(tokens.path("id_token").asText(null));
        String accountId = text(tokens.path("account_id"));
        accountId = accountId != null ? accountId : text(id.path(AUTH).path("chatgpt_account_id"));
        accountId = accountId != null ? accountId : text(accessClaims.path(AUTH).path("chatgpt_account_id"));
        String email = text(id.path("email"));
        email = email != null ? email : text(id.path("https://api.openai.com/profile").path("email"));
        String plan = text(id.path(AUTH).path("chatgpt_plan_type"));
        ObjectNode who = body.putObject("providerSpecificData").putObject("oauthAccount");
        String identity = accountId != null ? accountId : email;
        putIf(who, "identity", identity);
        putIf(who, "accountId", accountId);
        putIf(who, "email", email);
        putIf(who, "plan", plan);
    }

    /**
     * The {@code codex} connection already holding the file's account (same
     * {@code providerSpecificData.oauthAccount.identity}, as a login matches), or null.
     *
     * @param list the answer of {@code GET /api/providers}
     * @param body the connection body {@link #fill} made
     * @return the connection, or null
     */
    static JsonNode sameAccount(JsonNode list, ObjectNode body) {
        String identity = body.at("/providerSpecificData/oauthAccount/identity").asText(null);
        if (identity == null) {
            return null;
        }
        for (JsonNode c : list.path("data")) {
            if ("codex".equals(c.path("provider").asText()) && identity.equals(c.at("/providerSpecificData/oauthAccount/identity").asText(null))) {
                return c;
            }
        }
        return null;
    }

    /**
     * The {@code PATCH} body renewing an existing connection: the new tokens, and its
     * {@code providerSpecificData} with the account replaced (the operator's other settings kept).
     *
     * @param existing the connection as listed
     * @param body the connection body {@link #fill} made
     * @return the patch
     */
    static ObjectNode update(JsonNode existing, ObjectNode body) {
        ObjectNode patch = AdminClient.json().createObjectNode();
        patch.set("oauth", body.get("oauth"));
        ObjectNode psd = existing.path("providerSpecificData").isObject() ? ((ObjectNode) existing.get("providerSpecificData")).deepCopy()
                : AdminClient.json().createObjectNode();
        psd.set("oauthAccount", body.at("/providerSpecificData/oauthAccount"));
        patch.set("providerSpecificData", psd);
        return patch;
    }

    /** A JWT's payload, unverified; an empty object when it is no JWT. */
    static JsonNode claims(String jwt) {
        if (jwt == null) {
            return AdminClient.json().createObjectNode();
        }
        String[] parts = jwt.split("\\.", -1);
        if (parts.length != 3) {
            return AdminClient.json().createObjectNode();
        }
        try {
            String payload = parts[1];
            while (payload.endsWith("=")) {
                payload = payload.substring(0, payload.length() - 1);
            }
            JsonNode node = AdminClient.json().readTree(new String(Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8));
            return node != null && node.isObject() ? node : AdminClient.json().createObjectNode();
        } catch (IllegalArgumentException | java.io.IOException e) {
            return AdminClient.json().createObjectNode();
        }
    }

    private static String text(JsonNode n) {
        return n != null && n.isTextual() && !n.asText().isBlank() ? n.asText() : null;
    }

    private static void putIf(ObjectNode o, String k, String v) {
        if (v != null) {
            o.put(k, v);
        }
    }
}
