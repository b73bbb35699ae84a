package dev.sluice.api;

/**
 * Lets an executor persist credentials it renewed for a connection (e.g. after an OAuth refresh),
 * so that later requests and restarts use them. Updates apply to connections of the calling
 * plugin's own providers only.
 */
public interface CredentialUpdates {

    /**
     * Stores renewed OAuth tokens of a connection, durably, before returning.
     *
     * @param connectionId the connection (from {@link UpstreamTarget#connectionId()})
     * @param accessToken the new access token
     * @param refreshToken the new refresh token, or null to keep the stored one
     * @param expiresAt the new expiry in epoch ms, or null when unknown
     * @return true when stored; false when the connection does not exist (any more) or belongs to
     *     another plugin's provider
     */
    boolean oauthRenewed(String connectionId, String accessToken, String refreshToken, Long expiresAt);

    /**
     * Stores one of a connection's provider-specific settings ({@code providerSpecificData.<key>})
     * that an executor learned from its upstream (e.g. the Code Assist project of a Gemini login,
     * issue 36), durably, so later requests and restarts need not ask again. Other settings of the
     * connection are kept. The default stores nothing.
     *
     * @param connectionId the connection (from {@link UpstreamTarget#connectionId()})
     * @param key the setting's name
     * @param value its text value
     * @return true when stored; false when the connection does not exist (any more), belongs to
     *     another plugin's provider, or the host cannot store settings
     */
    @Experimental("issue 36: plugins learning per-connection facts is new")
    default boolean providerSettingLearned(String connectionId, String key, String value) {
        return false;
    }
}
