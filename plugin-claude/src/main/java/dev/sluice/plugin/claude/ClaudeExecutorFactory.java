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
 *   <li>{@code plugins.settings.claude.extraAnthropicBetas}: comma-separated beta names clients may
 *       switch on besides {@link AnthropicHeaders#ALLOWED_BETAS}.</li>
 * </ul>
 * A bad setting is logged and ignored (the default applies) rather than failing the start.
 */
final class ClaudeExecutorFactory implements ExecutorFactory {

    /** Setting: {@code max_tokens} when a request names none. */
    static final String DEFAULT_MAX_TOKENS_SETTING = "defaultMaxTokens";
    /** Setting: more allowed {@code anthropic-beta} names, comma-separated. */
    static final String EXTRA_BETAS_SETTING = "extraAnthropicBetas";

    @Override
    public String name() {
        return ClaudePlugin.EXECUTOR_NAME;
    }

    @Override
    public ProviderExecutor create(HostContext host) {
        return new ClaudeExecutor(host.http(), host.clock(), new AnthropicHeaders(extraBetas(host)),
                new MessagesRequestWriter(defaultMaxTokens(host)));
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

    private static Set<String> extraBetas(HostContext host) {
        Set<String> out = new LinkedHashSet<>();
        String configured = host.settings().get(EXTRA_BETAS_SETTING).orElse("");
        for (String part : configured.split(",")) {
            String name = part.strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            if (AnthropicHeaders.BETA_NAME.matcher(name).matches()) {
                out.add(name);
            } else {
                host.logger().log(Level.WARNING, "plugins.settings.claude." + EXTRA_BETAS_SETTING
                        + ": ignoring '" + part.strip() + "', not a beta name");
            }
        }
        return out;
    }
}
