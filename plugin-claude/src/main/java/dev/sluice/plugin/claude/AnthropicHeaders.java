package dev.sluice.plugin.claude;

import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds the headers of a Messages API request from scratch (SPEC SEC-5): content type, accept,
 * user agent, {@code anthropic-version}, the connection's own credentials, and an
 * {@code anthropic-beta} list that holds only allow-listed names the client asked for plus what
 * the connection class needs. Nothing else a client sent reaches Anthropic.
 */
final class AnthropicHeaders {

    /** The Messages API version sent when the client did not name one. */
    static final String DEFAULT_VERSION = "2023-06-01";
    /** The beta an OAuth (subscription) access token needs to be accepted by the Messages API. */
    static final String OAUTH_BETA = "oauth-2025-04-20";
    /** The user agent Sluice announces upstream. */
    static final String USER_AGENT = "Sluice/0.1";

    /**
     * Beta features a client may switch on through its own {@code anthropic-beta} header. Each is a
     * request-shaping feature that changes nothing about authentication or billing identity; any
     * other name is dropped (documented in docs/providers/claude.md). Operators extend the list
     * with the plugin setting {@code extraAnthropicBetas}.
     */
    static final Set<String> ALLOWED_BETAS = Set.of(
            "prompt-caching-2024-07-31",
            "extended-cache-ttl-2025-04-11",
            "interleaved-thinking-2025-05-14",
            "fine-grained-tool-streaming-2025-05-14",
            "context-1m-2025-08-07",
            "output-128k-2025-02-19",
            "token-efficient-tools-2025-02-19",
            "context-management-2025-06-27");

    /** Beta names as Anthropic writes them; anything else is not a beta name (and might smuggle header syntax). */
    static final Pattern BETA_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{0,99}");
    /** {@code anthropic-version} values are dates. */
    private static final Pattern VERSION = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    private final Set<String> allowedBetas;

    /**
     * Creates the builder.
     *
     * @param extraAllowedBetas beta names the operator allows besides {@link #ALLOWED_BETAS}
     */
    AnthropicHeaders(Set<String> extraAllowedBetas) {
        Set<String> all = new LinkedHashSet<>(ALLOWED_BETAS);
        all.addAll(extraAllowedBetas);
        this.allowedBetas = Set.copyOf(all);
    }

    /**
     * The headers of one request.
     *
     * @param target the connection
     * @param stream whether a stream is requested
     * @param clientHeaders the allow-listed client headers the runtime handed over (lower-case names)
     * @return header name to value
     */
    Map<String, String> build(UpstreamTarget target, boolean stream, Map<String, String> clientHeaders) {
        Map<String, String> h = new LinkedHashMap<>(8);
        h.put("content-type", "application/json");
        h.put("accept", stream ? "text/event-stream" : "application/json");
        h.put("user-agent", USER_AGENT);
        h.put("anthropic-version", version(clientHeaders.get("anthropic-version")));
        Set<String> betas = new LinkedHashSet<>();
        Credentials c = target.credentials();
        if (target.providerClass() == ProviderClass.OAUTH) {
            // bearerToken(): the access token, else a token stored in the key field
            String token = c.bearerToken();
            if (nonEmpty(token)) {
                h.put("authorization", "Bearer " + token);
            }
            betas.add(OAUTH_BETA);
        } else if (nonEmpty(c.apiKey())) {
            // apikey (and a declared local server): Anthropic's own scheme
            h.put("x-api-key", c.apiKey());
        }
        betas.addAll(allowedClientBetas(clientHeaders.get("anthropic-beta")));
        if (!betas.isEmpty()) {
            h.put("anthropic-beta", String.join(",", betas));
        }
        return h;
    }

    /**
     * The client's beta names that are on the allow-list, in the client's order, without duplicates.
     *
     * @param header the client's {@code anthropic-beta} value, or null
     * @return the allowed names
     */
    Set<String> allowedClientBetas(String header) {
        Set<String> out = new LinkedHashSet<>();
        if (header == null) {
            return out;
        }
        for (String part : header.split(",")) {
            String name = part.strip().toLowerCase(Locale.ROOT);
            if (BETA_NAME.matcher(name).matches() && allowedBetas.contains(name)) {
                out.add(name);
            }
        }
        return out;
    }

    /**
     * Every allowed beta name (built-in and configured).
     *
     * @return the allow-list
     */
    Set<String> allowedBetas() {
        return allowedBetas;
    }

    private static String version(String fromClient) {
        if (fromClient != null) {
            String v = fromClient.strip();
            if (VERSION.matcher(v).matches()) {
                return v;
            }
        }
        return DEFAULT_VERSION;
    }

    private static boolean nonEmpty(String s) {
        return s != null && !s.isEmpty();
    }
}
