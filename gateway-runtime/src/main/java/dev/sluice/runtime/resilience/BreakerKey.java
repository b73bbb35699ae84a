package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Locale;

/**
 * What one provider circuit breaker guards (SPEC §6, BO-4): a provider <em>and</em> one upstream
 * host, so that transport failures to one base URL never open the provider's other hosts.
 *
 * @param provider the provider id (e.g. {@code glm}), as configured
 * @param host the authority {@code host:port} of the connection's base URL, lower case
 */
public record BreakerKey(String provider, String host) {

    /** Validates and lower-cases the host. */
    public BreakerKey {
        requireNonNull(provider, "provider is null");
        requireNonNull(host, "host is null");
        if (provider.isBlank()) {
            throw new IllegalArgumentException("provider is blank");
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException("host is blank");
        }
        host = host.toLowerCase(Locale.ROOT);
    }

    /**
     * The key of a connection's base URL: its host and port, the port defaulting to the scheme's
     * (443 for https, 80 for http) so that {@code https://x} and {@code https://x:443} share one
     * breaker.
     *
     * @param provider the provider id
     * @param baseUrl an absolute http(s) URL
     * @return the key
     * @throws IllegalArgumentException when the URL has no host
     */
    public static BreakerKey forBaseUrl(String provider, String baseUrl) {
        requireNonNull(baseUrl, "baseUrl is null");
        URI uri = URI.create(baseUrl.strip());
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("base URL has no host: " + baseUrl);
        }
        int port = uri.getPort();
        if (port < 0) {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            port = switch (scheme) {
                case "https" -> 443;
                case "http" -> 80;
                default -> throw new IllegalArgumentException("base URL has no port and an unknown scheme: " + baseUrl);
            };
        }
        return new BreakerKey(provider, host + ":" + port);
    }

    /** @return {@code provider@host} */
    @Override
    public String toString() {
        return provider + "@" + host;
    }
}
