package dev.sluice.runtime.store;

import dev.sluice.api.CredentialUpdates;
import java.util.Set;

/**
 * What one plugin's executors may write to connections: renewed OAuth tokens and settings learned
 * from the upstream, each only for connections of the plugin's own providers.
 */
public final class PluginConnectionUpdates implements CredentialUpdates {

    private final ConnectionStore connections;
    private final Set<String> providers;

    /**
     * Creates the updates of one plugin.
     *
     * @param connections the store
     * @param providers the plugin's provider ids
     */
    public PluginConnectionUpdates(ConnectionStore connections, Set<String> providers) {
        this.connections = connections;
        this.providers = Set.copyOf(providers);
    }

    @Override
    public boolean oauthRenewed(String connectionId, String accessToken, String refreshToken, Long expiresAt) {
        return connections.find(connectionId)
                .filter(c -> providers.contains(c.provider()) && accessToken != null && !accessToken.isBlank())
                .flatMap(c -> connections.updateOAuth(connectionId, new OAuthTokens(accessToken,
                        refreshToken != null ? refreshToken : c.oauth() == null ? null : c.oauth().refreshToken(), expiresAt)))
                .isPresent();
    }

    @Override
    public boolean providerSettingLearned(String connectionId, String key, String value) {
        if (key == null || key.isBlank() || value == null) {
            return false;
        }
        return connections.find(connectionId).filter(c -> providers.contains(c.provider()))
                .flatMap(c -> connections.putProviderSetting(connectionId, key, value)).isPresent();
    }
}
