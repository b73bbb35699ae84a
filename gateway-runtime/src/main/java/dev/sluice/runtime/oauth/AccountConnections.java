package dev.sluice.runtime.oauth;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import dev.sluice.toolkit.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Turns a logged-in account into an {@code oauth} connection (issue 36): a new one, or the
 * provider's existing connection of the same account (its {@code providerSpecificData.oauthAccount.identity}),
 * which keeps its id, settings and statistics and gets the new tokens. The tokens are stored
 * through the connection store, which seals them like every credential.
 */
public final class AccountConnections {

    /** The member of {@code providerSpecificData} holding the account's identity. */
    public static final String ACCOUNT_KEY = "oauthAccount";
    /** Priority of a connection created by login when the operator gives none. */
    public static final int DEFAULT_PRIORITY = 1;

    private final ConnectionStore store;

    /**
     * Creates the writer.
     *
     * @param store the connections
     */
    public AccountConnections(ConnectionStore store) {
        this.store = store;
    }

    /**
     * Creates or updates the account's connection.
     *
     * @param login the effective login description
     * @param account what the login gave
     * @param options the operator's choices when the flow started
     * @return the connection
     */
    Connection save(OAuthLogin login, OAuthAccount account, StartOptions options) {
        OAuthTokens tokens = new OAuthTokens(account.accessToken(), account.refreshToken(), account.expiresAt());
        String identity = account.identity();
        Connection existing = identity == null ? null : store.list().stream()
                .filter(c -> c.provider().equals(login.provider()) && identity.equals(identityOf(c)))
                .findFirst().orElse(null);
        String baseUrl = options.baseUrl() != null ? options.baseUrl()
                : account.resourceUrl() != null ? withScheme(account.resourceUrl())
                : existing != null ? existing.baseUrl() : login.upstreamBaseUrl();
        if (existing == null) {
            String name = options.name() != null ? options.name()
                    : account.email() != null ? account.email() : login.provider() + " account";
            return store.create(new NewConnection(login.provider(), name, ProviderClass.OAUTH, null, tokens, baseUrl,
                    options.priority() != null ? options.priority() : DEFAULT_PRIORITY, true, null, null, false,
                    Json.write(accountData(null, account)), null, options.proxyUrl()));
        }
        NewConnection fields = new NewConnection(existing.provider(), options.name() != null ? options.name() : existing.name(),
                ProviderClass.OAUTH, existing.apiKey(), tokens, baseUrl,
                options.priority() != null ? options.priority() : existing.priority(), existing.enabled(), existing.maxConcurrent(),
                existing.rateLimitOverridesJson(), existing.disableCooling(),
                Json.write(accountData(existing.providerSpecificDataJson(), account)), existing.localAddress(),
                options.proxyUrl() != null ? options.proxyUrl() : existing.proxyUrl());
        Connection updated = store.update(existing.id(), fields, existing.rateLimitProtection()).orElseGet(() -> store.create(fields));
        if (!"active".equals(updated.state().testStatus())) {
            // logging in again is how an operator revives an expired (or otherwise ended) account
            updated = store.updateState(updated.id(), ConnectionState.ACTIVE).orElse(updated);
        }
        return updated;
    }

    /** The identity a connection was logged in as, or null. */
    static String identityOf(Connection c) {
        if (c.providerSpecificDataJson() == null) {
            return null;
        }
        try {
            Map<String, Object> psd = Json.parseObject(c.providerSpecificDataJson());
            return Json.string(Json.object(psd, ACCOUNT_KEY), "identity");
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static Map<String, Object> accountData(String existingJson, OAuthAccount account) {
        Map<String, Object> psd = new LinkedHashMap<>();
        if (existingJson != null) {
            try {
                psd.putAll(Json.parseObject(existingJson));
            } catch (IllegalArgumentException e) {
                // an unreadable object is replaced by the account's
            }
        }
        Map<String, Object> who = new LinkedHashMap<>(account.metadata());
        put(who, "identity", account.identity());
        put(who, "accountId", account.accountId());
        put(who, "email", account.email());
        put(who, "plan", account.plan());
        psd.put(ACCOUNT_KEY, who);
        return psd;
    }

    private static void put(Map<String, Object> m, String k, String v) {
        if (v != null) {
            m.put(k, v);
        }
    }

    /** Qwen's {@code resource_url} comes without a scheme ({@code portal.qwen.ai}). */
    private static String withScheme(String url) {
        String u = url.strip();
        u = u.startsWith("http://") || u.startsWith("https://") ? u : "https://" + u;
        return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
    }
}
