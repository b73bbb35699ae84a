package dev.sluice.runtime.store;

import dev.sluice.api.ProviderClass;

/**
 * The operator-editable fields of a connection, as validated by the admin API.
 *
 * @param provider provider id
 * @param name display name
 * @param authType class
 * @param apiKey API key, or null
 * @param oauth OAuth tokens, or null
 * @param baseUrl base URL override, or null
 * @param priority ≥ 1
 * @param enabled routable
 * @param maxConcurrent cap, or null
 * @param rateLimitOverridesJson JSON object, or null
 * @param disableCooling never cool
 * @param providerSpecificDataJson JSON object, or null
 * @param localAddress local address, or null
 * @param proxyUrl proxy, or null
 */
public record NewConnection(
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
        boolean disableCooling,
        String providerSpecificDataJson,
        String localAddress,
        String proxyUrl) {

    @Override
    public String toString() {
        return "NewConnection[provider=" + provider + ", name=" + name + ", authType=" + authType + "]";
    }
}
