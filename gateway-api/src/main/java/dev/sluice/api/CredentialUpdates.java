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
}
