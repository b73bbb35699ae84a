package dev.sluice.plugin.claude;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;
import java.lang.System.Logger.Level;
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
 * </ul>
 * A bad setting is logged and ignored (the default applies) rather than failing the start. The
 * OAuth settings ({@code oauthTokenUrl}, {@code oauthClientId}, {@code oauthRefreshSkewMs} …) are
 * the host's: it logs in and renews tokens from {@link ClaudeLogin}'s description with them applied.
 */
final class ClaudeExecutorFactory implements ExecutorFactory {

    /** Setting: {@code max_tokens} when a request names none. */
    static final String DEFAULT_MAX_TOKENS_SETTING = "defaultMaxTokens";
    /** Setting: {@code anthropic-beta} names clients may not switch on, comma-separated. */
    static final String DENIED_BETAS_SETTING = "deniedAnthropicBetas";
    /** The former setting that extended an allow-list; every client beta is forwarded now. */
    static final String OBSOLETE_EXTRA_BETAS_SETTING = "extraAnthropicBetas";
    @Override
    public String name() {
        return ClaudePlugin.EXECUTOR_NAME;
    }

    @Override
    public ProviderExecutor create(HostContext host) {
        return new ClaudeExecutor(host.http(), host.clock(), new AnthropicHeaders(deniedBetas(host)),
                new MessagesRequestWriter(defaultMaxTokens(host)), host.sharedNotes().orElse(null));
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
