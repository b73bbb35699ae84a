package dev.sluice.plugin.codex;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Unsigned test JWTs: only the payload is ever read. */
final class Jwts {

    private Jwts() {
    }

    static String of(String payloadJson) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8)) + ".c2lnbmF0dXJl";
    }

    /** An id token as auth.openai.com issues it for a ChatGPT login. */
    static String idToken(String accountId, String email, String plan) {
        return of("{\"email\":\"" + email + "\",\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + accountId
                + "\",\"chatgpt_plan_type\":\"" + plan + "\",\"chatgpt_user_id\":\"user-1\"}}");
    }

    /** An access token with an expiry and the account claim. */
    static String accessToken(String accountId, long expEpochSeconds) {
        return of("{\"exp\":" + expEpochSeconds + ",\"https://api.openai.com/auth\":{\"chatgpt_account_id\":\"" + accountId + "\"}}");
    }
}
