package dev.sluice.plugin.claude;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Creates the {@code claude} executor from the host's HTTP client, clock and the plugin's settings:
 * <ul>
 *   <li>{@code plugins.settings.claude.defaultMaxTokens}: {@code max_tokens} when a request names
 *       none (default {@value MessagesRequestWriter#DEFAULT_MAX_TOKENS});</li>
 *   <li>{@code plugins.settings.claude.deniedAnthropicBetas}: comma-separated beta names (a
 *       trailing {@code *} makes a prefix) a client's {@code anthropic-beta} may not switch on,
 *       besides the reserved {@code oauth-*} ({@code extraAnthropicBetas}, the former allow-list's
 *       extension, is no longer needed: a warning says so);</li>
 *   <li>{@code plugins.settings.claude.oauthTokenUrl}: the OAuth token endpoint of {@code oauth}
 *       connections (default {@value OAuthRefresher#DEFAULT_TOKEN_URL});</li>
 *   <li>{@code plugins.settings.claude.oauthClientId}: the OAuth client id sent with a refresh
 *       (default {@value OAuthRefresher#DEFAULT_CLIENT_ID}, Claude Code's public client);</li>
 *   <li>{@code plugins.settings.claude.oauthRefreshSkewMs}: how long before its expiry an access
 *       token is refreshed, in ms (default {@value OAuthRefresher#DEFAULT_SKEW_MS}).</li>
 * </ul>
 * A bad setting is logged and ignored (the default applies) rather than failing the start.
 */
final class ClaudeExecutorFactory implements ExecutorFactory {

    /** Setting: {@code max_tokens} when a request names none. */
    static final String DEFAULT_MAX_TOKENS_SETTING = "defaultMaxTokens";
    /** Setting: {@code anthropic-beta} names clients may not switch on, comma-separated. */
    static final String DENIED_BETAS_SETTING = "deniedAnthropicBetas";
    /** The former setting that extended an allow-list; every client beta is forwarded now. */
    static final String OBSOLETE_EXTRA_BETAS_SETTING = "extraAnthropicBetas";
    /** Setting: the OAuth token endpoint. */
    static final String OAUTH_TOKEN_URL_SETTING = "oauthTokenUrl";
    /** Setting: the OAuth client id. */
    static final String OAUTH_CLIENT_ID_SETTING = "oauthClientId";
    /** Setting: refresh margin before expiry, in ms. */
    static final String OAUTH_SKEW_SETTING = "oauthRefreshSkewMs";

    @Override
    public String name() {
        return ClaudePlugin.EXECUTOR_NAME;
    }

    @Override
    public ProviderExecutor create(HostContext host) {
        OAuthRefresher refresher = new OAuthRefresher(host.http(), host.clock(), tokenUrl(host), clientId(host),
                refreshSkewMs(host), host.credentialUpdates().orElse(null), host.logger());
        return new ClaudeExecutor(host.http(), host.clock(), new AnthropicHeaders(deniedBetas(host)),
                new MessagesRequestWriter(defaultMaxTokens(host)), refresher, host.sharedNotes().orElse(null));
    }

    private static URI tokenUrl(HostContext host) {
        String configured = host.settings().get(OAUTH_TOKEN_URL_SETTING).orElse(null);
        if (configured == null || configured.isBlank()) {
            return URI.create(OAuthRefresher.DEFAULT_TOKEN_URL);
        }
        try {
            URI uri = new URI(configured.strip());
            String scheme = uri.getScheme();
            if (("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) && uri.getHost() != null
                    && uri.getRawUserInfo() == null) {
                return uri;
            }
        } catch (java.net.URISyntaxException ignored) {
            // reported below
        }
        host.logger().log(Level.WARNING, "plugins.settings.claude." + OAUTH_TOKEN_URL_SETTING
                + " must be an absolute http(s) URL, got '" + configured + "'; using " + OAuthRefresher.DEFAULT_TOKEN_URL);
        return URI.create(OAuthRefresher.DEFAULT_TOKEN_URL);
    }

    private static String clientId(HostContext host) {
        String configured = host.settings().get(OAUTH_CLIENT_ID_SETTING).orElse(null);
        return configured == null || configured.isBlank() ? OAuthRefresher.DEFAULT_CLIENT_ID : configured.strip();
    }

    private static long refreshSkewMs(HostContext host) {
        String configured = host.settings().get(OAUTH_SKEW_SETTING).orElse(null);
        if (configured == null || configured.isBlank()) {
            return OAuthRefresher.DEFAULT_SKEW_MS;
        }
        try {
            long v = Long.parseLong(configured.strip());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        host.logger().log(Level.WARNING, "plugins.settings.claude." + OAUTH_SKEW_SETTING
                + " must be a non-negative integer (ms), got '" + configured + "'; using " + OAuthRefresher.DEFAULT_SKEW_MS);
        return OAuthRefresher.DEFAULT_SKEW_MS;
    }

    private static int defaultMaxTokens(HostContext host) {
        String configured = host.settings().get(DEFAULT_MAX_TOKENS_SETTING).orElse(null);
        if (configured == null || configured.isBlank()) {
            return MessagesRequestWriter.DEFAULT_MAX_TOKENS;
        }
        try {
            int v = Integer.parseInt(configured.strip());
            if (v >= 1) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        host.logger().log(Level.WARNING, "plugins.settings.claude." + DEFAULT_MAX_TOKENS_SETTING
                + " must be a positive integer, got '" + configured + "'; using " + MessagesRequestWriter.DEFAULT_MAX_TOKENS);
        return MessagesRequestWriter.DEFAULT_MAX_TOKENS;
    }

    private static Set<String> deniedBetas(HostContext host) {
        if (host.settings().get(OBSOLETE_EXTRA_BETAS_SETTING).isPresent()) {
            host.logger().log(Level.WARNING, "plugins.settings.claude." + OBSOLETE_EXTRA_BETAS_SETTING + " is no longer needed and is"
                    + " ignored: every anthropic-beta a client sends is forwarded except oauth-* and plugins.settings.claude."
                    + DENIED_BETAS_SETTING);
        }
        Set<String> out = new LinkedHashSet<>();
        String configured = host.settings().get(DENIED_BETAS_SETTING).orElse("");
        for (String part : configured.split(",")) {
            String name = part.strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            String bare = name.endsWith("*") ? name.substring(0, name.length() - 1) : name;
            if (AnthropicHeaders.BETA_NAME.matcher(bare).matches()) {
                out.add(name);
            } else {
                host.logger().log(Level.WARNING, "plugins.settings.claude." + DENIED_BETAS_SETTING
                        + ": ignoring '" + part.strip() + "', not a beta name");
            }
        }
        return out;
    }
}
