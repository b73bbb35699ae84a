package dev.sluice.runtime.store;

/**
 * OAuth credentials of a connection. {@link #toString()} never shows the tokens.
 *
 * @param accessToken access token
 * @param refreshToken refresh token, or null
 * @param expiresAt access-token expiry, epoch ms, or null
 */
public record OAuthTokens(String accessToken, String refreshToken, Long expiresAt) {
    @Override
    public String toString() {
        return "OAuthTokens[accessToken=***, refreshToken=" + (refreshToken == null ? "none" : "***") + ", expiresAt=" + expiresAt + "]";
    }
}
