package dev.sluice.plugin.codex;

import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthTokenAnswer;

/**
 * Turns a token answer of {@code auth.openai.com} into the connection's account, as Codex's
 * {@code persist_tokens_to_store_async} and {@code parse_chatgpt_jwt_claims} do: the account id
 * ({@code chatgpt_account_id}), e-mail and plan from the {@code id_token}'s claims. A refresh
 * answer may lack the {@code id_token} (Codex keeps the old one then): the access token's claims,
 * which carry the same namespace, stand in. The expiry is {@code expires_in} when the answer has
 * it, else the access token's {@code exp} (Codex's {@code parse_jwt_expiration}).
 */
final class CodexAccounts {

    private CodexAccounts() {
    }

    static OAuthAccount account(OAuthTokenAnswer answer) {
        OAuthAccount.Builder b = OAuthAccount.standard(answer);
        JwtClaims id = JwtClaims.of(answer.string("id_token"));
        JwtClaims access = JwtClaims.of(answer.string("access_token"));
        if (answer.expiresAt() == null) {
            b.expiresAt(access.expiresAtMillis());
        }
        return b.accountId(first(id.accountId(), access.accountId()))
                .email(first(id.email(), access.email()))
                .plan(first(id.plan(), access.plan()))
                .build();
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }
}
