package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;

/**
 * A provider connection (SPEC DM-1) with its credentials decrypted. {@link #toString()} never
 * shows secrets.
 *
 * @param id id
 * @param seq creation order (ties of {@code priority} are broken by it)
 * @param provider provider id
 * @param name display name
 * @param authType class
 * @param apiKey API key, or null
 * @param oauth OAuth tokens, or null
 * @param baseUrl base URL override, or null
 * @param priority lower is tried first, ≥ 1
 * @param enabled whether routable
 * @param maxConcurrent concurrency cap, or null
 * @param rateLimitOverridesJson JSON object, or null
 * @param rateLimitProtection explicit queue protection (RQ-8)
 * @param disableCooling failures never cool this connection (CC-9)
 * @param providerSpecificDataJson JSON object, or null
 * @param localAddress local address to bind, or null
 * @param proxyUrl outbound proxy, or null
 * @param state resilience state
 * @param createdAt epoch ms
 * @param updatedAt epoch ms
 */
public record Connection(
        String id,
        long seq,
        String provider,
        String name,
        ProviderClass authType,
        String apiKey,
        OAuthTokens oauth,
        String baseUrl,
        int priority,
        boolean enabled,
        Integer maxConcurrent,
        String rateLimitOverridesJson,
        boolean rateLimitProtection,
        boolean disableCooling,
        String providerSpecificDataJson,
        String localAddress,
        String proxyUrl,
        ConnectionState state,
        long createdAt,
        long updatedAt) {

    /** Validates. */
    public Connection {
        requireNonNull(id, "id is null");
        requireNonNull(provider, "provider is null");
        requireNonNull(authType, "authType is null");
        requireNonNull(state, "state is null");
    }

    @Override
    public String toString() {
        return "Connection[id=" + id + ", provider=" + provider + ", name=" + name + ", authType=" + authType.wireName()
                + ", priority=" + priority + ", enabled=" + enabled + ", apiKey=" + (apiKey == null ? "none" : "***") + "]";
    }
}
