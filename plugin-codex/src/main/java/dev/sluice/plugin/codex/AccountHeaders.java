package dev.sluice.plugin.codex;

import dev.sluice.api.RequestValues;
import dev.sluice.api.UpstreamCallInfo;
import dev.sluice.api.UpstreamTarget;
import java.util.Map;

/**
 * The headers Codex adds to every backend request of a ChatGPT account
 * ({@code codex-rs/codex-api/src/auth.rs}, {@code add_auth_headers_to_header_map}):
 * {@code ChatGPT-Account-ID}, the workspace the request is billed to, and {@code originator}
 * ({@code default_client.rs}, {@code default_headers}). The account id is the one login or import
 * stored with the connection ({@code providerSpecificData.oauthAccount.accountId}); a connection
 * made without it falls back to the access token's own {@code chatgpt_account_id} claim.
 */
final class AccountHeaders implements RequestValues {

    /** The header naming the ChatGPT workspace. */
    static final String ACCOUNT_HEADER = "ChatGPT-Account-ID";
    /** Where the host keeps the logged-in account ({@code AccountConnections.ACCOUNT_KEY}). */
    static final String ACCOUNT_KEY = "oauthAccount";

    @Override
    public Map<String, String> compute(UpstreamTarget target, UpstreamCallInfo call) {
        String account = accountId(target);
        return account == null ? Map.of("originator", CodexPlugin.ORIGINATOR)
                : Map.of("originator", CodexPlugin.ORIGINATOR, ACCOUNT_HEADER, account);
    }

    static String accountId(UpstreamTarget target) {
        if (target.providerSpecificData().get(ACCOUNT_KEY) instanceof Map<?, ?> who && who.get("accountId") instanceof String id
                && headerSafe(id)) {
            return id;
        }
        String claimed = JwtClaims.of(target.credentials().accessToken()).accountId();
        return claimed != null && headerSafe(claimed) ? claimed : null;
    }

    /** An account id that is a header value as it stands: no control characters, nothing blank. */
    private static boolean headerSafe(String v) {
        return !v.isBlank() && v.chars().allMatch(c -> c >= 0x20 && c != 0x7f);
    }
}
