package dev.sluice.testkit.plugin;

import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.runtime.oauth.StartOptions;

/**
 * What an operator may choose when starting a login ({@code POST /api/oauth/{provider}/start}'s
 * {@code name}, {@code priority} and {@code baseUrl}).
 *
 * @param name the connection's display name, or null for the account's e-mail
 * @param priority the connection's priority, or null
 * @param baseUrl the connection's base URL, or null (then the token answer's resource URL, the
 *     {@code upstreamBaseUrl} setting or the provider's default)
 */
public record LoginOptions(String name, Integer priority, String baseUrl) {

    /** No choices. */
    public static final LoginOptions DEFAULTS = new LoginOptions(null, null, null);

    /**
     * Validates.
     *
     * @throws IllegalArgumentException for a priority below 1, as the admin API refuses it
     */
    public LoginOptions {
        if (priority != null && priority < 1) {
            throw new IllegalArgumentException("priority must be at least 1");
        }
    }

    StartOptions toStart(OAuthFlow flow) {
        return new StartOptions(name, priority, null, baseUrl, flow);
    }
}
