package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthFlow;

/**
 * What the operator chose when starting a login ({@code POST /api/oauth/{provider}/start}),
 * validated by the web layer.
 *
 * @param name the connection's display name, or null for the account's e-mail
 * @param priority the connection's priority, or null
 * @param proxyUrl the connection's outbound proxy, or null
 * @param baseUrl the connection's base URL, or null
 * @param flow the flow, or null for the provider's first
 */
public record StartOptions(String name, Integer priority, String proxyUrl, String baseUrl, OAuthFlow flow) {

    /** No choices. */
    public static final StartOptions DEFAULTS = new StartOptions(null, null, null, null, null);
}
