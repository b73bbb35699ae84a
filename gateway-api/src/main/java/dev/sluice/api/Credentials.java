package dev.sluice.api;

/**
 * A connection's secrets, decrypted for one upstream call. {@link #toString()} never shows them.
 *
 * @param apiKey API key, or null
 * @param accessToken OAuth access token, or null
 * @param refreshToken OAuth refresh token, or null
 * @param expiresAt OAuth access-token expiry in epoch milliseconds, or null
 */
public record Credentials(String apiKey, String accessToken, String refreshToken, Long expiresAt) {

    /** No credentials (e.g. a local server). */
    public static final Credentials NONE = new Credentials(null, null, null, null);

    /**
     * The token to send as {@code Authorization: Bearer}: the OAuth access token when present,
     * else the API key.
     *
     * @return the bearer token, or null when there is none
     */
    public String bearerToken() {
        return accessToken != null && !accessToken.isEmpty() ? accessToken : apiKey;
    }

    @Override
    public String toString() {
        return "Credentials[apiKey=" + (apiKey == null ? "none" : "***")
                + ", accessToken=" + (accessToken == null ? "none" : "***")
                + ", refreshToken=" + (refreshToken == null ? "none" : "***")
                + ", expiresAt=" + expiresAt + "]";
    }
}
