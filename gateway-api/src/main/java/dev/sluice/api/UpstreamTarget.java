package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.UpstreamHttp;
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
 * @param http the HTTP client this attempt must send through: the connection's egress route
 *     (its {@code localAddress} / {@code proxyUrl}, SPEC §16.3), or null when the host gave none
 *     (a target built by a test); executors send through {@link #httpOr(UpstreamHttp)}
 */
public record UpstreamTarget(
        String connectionId,
        String provider,
        ProviderClass providerClass,
        String baseUrl,
        Credentials credentials,
        Map<String, Object> providerSpecificData,
        UpstreamHttp http) {

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

    /**
     * A target without a client of its own (the form of SPI 1.0; executors then send through
     * their host's client).
     *
     * @param connectionId connection id
     * @param provider provider id
     * @param providerClass connection class
     * @param baseUrl effective base URL
     * @param credentials the secrets to authenticate with
     * @param providerSpecificData the connection's provider-specific settings
     */
    public UpstreamTarget(String connectionId, String provider, ProviderClass providerClass, String baseUrl, Credentials credentials,
            Map<String, Object> providerSpecificData) {
        this(connectionId, provider, providerClass, baseUrl, credentials, providerSpecificData, null);
    }

    /**
     * One of the connection's provider-specific settings as text (issue 27), for values that
     * differ per connection, such as an organisation or project id.
     *
     * @param key the setting's name
     * @return its value as text ({@code String.valueOf}), or null when the connection has none
     */
    public String setting(String key) {
        Object value = providerSpecificData.get(requireNonNull(key, "key is null"));
        return value == null ? null : String.valueOf(value);
    }

    /**
     * The client to send this attempt through: the connection's egress route when the host gave
     * one, else {@code fallback} (normally {@link HostContext#http()}). An executor that sends
     * through its host's client directly bypasses the connection's proxy and local address.
     *
     * @param fallback the client to use when the target has none
     * @return the client
     */
    public UpstreamHttp httpOr(UpstreamHttp fallback) {
        return http != null ? http : fallback;
    }
}
