package dev.sluice.testkit.plugin;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.oauth.AccountConnections;
import dev.sluice.runtime.store.Connection;
import dev.sluice.toolkit.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a login's connection holds, read back from the host's connection store: its tokens, the
 * account the plugin's {@link dev.sluice.api.oauth.OAuthAccountMapper} found, and where its requests go.
 * {@link #toString()} masks the tokens.
 *
 * @param id the connection id
 * @param provider the provider
 * @param name its display name (the operator's, else the account's e-mail, else "{provider} account")
 * @param authType always {@link ProviderClass#OAUTH}
 * @param accessToken the access token
 * @param refreshToken the refresh token, or null
 * @param expiresAt when the access token expires, epoch ms on the driver's clock, or null
 * @param baseUrl where its requests go: the operator's base URL, else the token answer's resource
 *     URL, else the {@code upstreamBaseUrl} setting, else the provider's {@code defaultBaseUrl}
 * @param priority its priority
 * @param identity the account identity the host matches a second login by (account id, else e-mail), or null
 * @param accountId the account id, or null
 * @param email the e-mail, or null
 * @param plan the plan, or null
 * @param metadata the mapper's other metadata
 */
public record LoginConnection(String id, String provider, String name, ProviderClass authType, String accessToken, String refreshToken,
        Long expiresAt, String baseUrl, int priority, String identity, String accountId, String email, String plan,
        Map<String, String> metadata) {

    private static final Set<String> NAMED = Set.of("identity", "accountId", "email", "plan");

    /** Copies the metadata. */
    public LoginConnection {
        metadata = Map.copyOf(metadata);
    }

    static LoginConnection of(Connection c, String defaultBaseUrl) {
        Map<String, String> account = new LinkedHashMap<>();
        if (c.providerSpecificDataJson() != null) {
            Map<String, Object> who = Json.object(Json.parseObject(c.providerSpecificDataJson()), AccountConnections.ACCOUNT_KEY);
            if (who != null) {
                who.forEach((k, v) -> account.put(k, String.valueOf(v)));
            }
        }
        Map<String, String> metadata = new LinkedHashMap<>(account);
        metadata.keySet().removeAll(NAMED);
        return new LoginConnection(c.id(), c.provider(), c.name(), c.authType(), c.oauth() == null ? null : c.oauth().accessToken(),
                c.oauth() == null ? null : c.oauth().refreshToken(), c.oauth() == null ? null : c.oauth().expiresAt(),
                c.baseUrl() != null ? c.baseUrl() : defaultBaseUrl, c.priority(), account.get("identity"), account.get("accountId"),
                account.get("email"), account.get("plan"), metadata);
    }

    @Override
    public String toString() {
        return "LoginConnection[id=" + id + ", provider=" + provider + ", name=" + name + ", accessToken=***, refreshToken="
                + (refreshToken == null ? "null" : "***") + ", expiresAt=" + expiresAt + ", baseUrl=" + baseUrl + ", priority=" + priority
                + ", identity=" + identity + ", accountId=" + accountId + ", email=" + email + ", plan=" + plan + ", metadata="
                + metadata + "]";
    }
}
