package dev.sluice.plugin.claude;

import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Builds the headers of a Messages API request from scratch (SPEC SEC-5): content type, accept,
 * user agent, {@code anthropic-version}, the connection's own credentials, and an
 * {@code anthropic-beta} list that holds the beta names the client asked for — except those that
 * change who is authenticated (any {@code oauth-*}: Sluice sets the one a connection needs) and
 * those the operator denies — plus what the connection class needs. Nothing else a client sent
 * reaches Anthropic. Clients such as Claude Code send betas their request bodies rely on
 * ({@code context_management}, {@code output_config}, mid-conversation system messages), so an
 * allow-list would break them with every new beta.
 */
final class AnthropicHeaders {

    /** The Messages API version sent when the client did not name one. */
    static final String DEFAULT_VERSION = "2023-06-01";
    /** The beta an OAuth (subscription) access token needs to be accepted by the Messages API. */
    static final String OAUTH_BETA = "oauth-2025-04-20";
    /** The user agent Sluice announces upstream. */
    static final String USER_AGENT = "Sluice/0.1";

    /**
     * Beta prefixes no client may switch on: they change who is authenticated (Sluice adds
     * {@link #OAUTH_BETA} itself for {@code oauth} connections).
     */
    static final List<String> RESERVED_BETA_PREFIXES = List.of("oauth-");

    /** Beta names as Anthropic writes them; anything else is not a beta name (and might smuggle header syntax). */
    static final Pattern BETA_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{0,99}");
    /** {@code anthropic-version} values are dates. */
    private static final Pattern VERSION = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    private final Set<String> deniedBetas;

    /**
     * Creates the builder.
     *
     * @param deniedBetas beta names the operator denies; a name ending in {@code *} is a prefix
     */
    AnthropicHeaders(Set<String> deniedBetas) {
        this.deniedBetas = Set.copyOf(deniedBetas);
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
        betas.addAll(forwardedClientBetas(clientHeaders.get("anthropic-beta")));
        if (!betas.isEmpty()) {
            h.put("anthropic-beta", String.join(",", betas));
        }
        return h;
    }

    /**
     * The client's beta names that go upstream, in the client's order, without duplicates: every
     * well-formed name but the reserved and the denied ones.
     *
     * @param header the client's {@code anthropic-beta} value, or null
     * @return the forwarded names
     */
    Set<String> forwardedClientBetas(String header) {
        Set<String> out = new LinkedHashSet<>();
        if (header == null) {
            return out;
        }
        for (String part : header.split(",")) {
            String name = part.strip().toLowerCase(Locale.ROOT);
            if (BETA_NAME.matcher(name).matches() && !denied(name)) {
                out.add(name);
            }
        }
        return out;
    }

    private boolean denied(String name) {
        for (String prefix : RESERVED_BETA_PREFIXES) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        for (String d : deniedBetas) {
            if (d.endsWith("*") ? name.startsWith(d.substring(0, d.length() - 1)) : name.equals(d)) {
                return true;
            }
        }
        return false;
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
