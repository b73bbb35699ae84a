package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The connection an attempt goes to.
 *
 * @param connectionId connection id
 * @param provider provider id
 * @param providerClass connection class
 * @param baseUrl effective base URL (the connection's override, else the provider default),
 *     without a trailing slash
 * @param credentials the secrets to authenticate with
 * @param providerSpecificData the connection's provider-specific settings (JSON values as
 *     {@code String}, {@code Number}, {@code Boolean}, {@code List} and {@code Map}); null
 *     values are dropped
 */
public record UpstreamTarget(
        String connectionId,
        String provider,
        ProviderClass providerClass,
        String baseUrl,
        Credentials credentials,
        Map<String, Object> providerSpecificData) {

    /** Validates the fields and copies the map. */
    public UpstreamTarget {
        requireNonNull(connectionId, "connectionId is null");
        requireNonNull(provider, "provider is null");
        requireNonNull(providerClass, "providerClass is null");
        requireNonNull(baseUrl, "baseUrl is null");
        requireNonNull(credentials, "credentials is null");
        Map<String, Object> copy = new LinkedHashMap<>();
        if (providerSpecificData != null) {
            providerSpecificData.forEach((k, v) -> {
                if (k != null && v != null) {
                    copy.put(k, v);
                }
            });
        }
        providerSpecificData = Map.copyOf(copy);
    }
}
