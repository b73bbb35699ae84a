package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthLogin;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The operator's overrides of a login description, read from the owning plugin's settings
 * ({@code plugins.settings.<plugin>.*}, issue 36): the same keys for every plugin, so tests and
 * operators point any provider's login at another server without the plugin doing anything.
 */
public final class LoginSettings {

    /** Setting: the authorization endpoint. */
    public static final String AUTHORIZE_URL = "oauthAuthorizeUrl";
    /** Setting: the token endpoint. */
    public static final String TOKEN_URL = "oauthTokenUrl";
    /** Setting: the device authorization endpoint. */
    public static final String DEVICE_URL = "oauthDeviceUrl";
    /** Setting: where an OpenAI device-auth login polls (Codex's {@code /api/accounts/deviceauth/token}). */
    public static final String DEVICE_POLL_URL = "oauthDevicePollUrl";
    /** Setting: where the operator enters a device login's user code when the server does not say. */
    public static final String DEVICE_VERIFICATION_URL = "oauthDeviceVerificationUrl";
    /** Setting: the redirect URI of an OpenAI device-auth login's code exchange. */
    public static final String DEVICE_REDIRECT_URI = "oauthDeviceRedirectUri";
    /** Setting: the client id. */
    public static final String CLIENT_ID = "oauthClientId";
    /** Setting: the client secret, for a provider that publishes one for its installed app (Google's). */
    public static final String CLIENT_SECRET = "oauthClientSecret";
    /** Setting: the redirect URI. */
    public static final String REDIRECT_URI = "oauthRedirectUri";
    /** Setting: the scopes, separated by spaces (or commas). */
    public static final String SCOPES = "oauthScopes";
    /** Setting: the base URL of connections created by login. */
    public static final String UPSTREAM_BASE_URL = "upstreamBaseUrl";

    /** Setting: how long before its expiry an access token is renewed, in ms. */
    public static final String REFRESH_SKEW_MS = "oauthRefreshSkewMs";

    private LoginSettings() {
    }

    /**
     * The description with the settings applied; blank settings are ignored.
     *
     * @param login the plugin's description
     * @param settings the plugin's settings
     * @return the effective description
     * @throws IllegalArgumentException when a setting is not a valid value (the message names it)
     */
    public static OAuthLogin apply(OAuthLogin login, Map<String, String> settings) {
        OAuthLogin.Builder b = login.toBuilder();
        String v;
        if ((v = value(settings, AUTHORIZE_URL)) != null) {
            b.authorizeUrl(v);
        }
        if ((v = value(settings, TOKEN_URL)) != null) {
            b.tokenUrl(v);
        }
        if ((v = value(settings, DEVICE_URL)) != null) {
            b.deviceUrl(v);
        }
        if ((v = value(settings, DEVICE_POLL_URL)) != null) {
            b.devicePollUrl(v);
        }
        if ((v = value(settings, DEVICE_VERIFICATION_URL)) != null) {
            b.deviceVerificationUrl(v);
        }
        if ((v = value(settings, DEVICE_REDIRECT_URI)) != null) {
            b.deviceRedirectUri(v);
        }
        if ((v = value(settings, CLIENT_ID)) != null) {
            b.clientId(v);
        }
        if ((v = value(settings, CLIENT_SECRET)) != null) {
            b.clientSecret(v);
        }
        if ((v = value(settings, REDIRECT_URI)) != null) {
            b.redirectUri(v);
        }
        if ((v = value(settings, SCOPES)) != null) {
            List<String> scopes = Arrays.stream(v.split("[\\s,]+")).filter(s -> !s.isEmpty()).toList();
            b.scopes(scopes);
        }
        if ((v = value(settings, UPSTREAM_BASE_URL)) != null) {
            b.upstreamBaseUrl(v);
        }
        return b.build();
    }

    /**
     * The refresh skew setting.
     *
     * @param settings the plugin's settings
     * @param dflt the default
     * @return the skew in ms; the default when unset or not a non-negative integer
     */
    public static long refreshSkewMs(Map<String, String> settings, long dflt) {
        String v = value(settings, REFRESH_SKEW_MS);
        try {
            long ms = v == null ? dflt : Long.parseLong(v);
            return ms < 0 ? dflt : ms;
        } catch (NumberFormatException e) {
            return dflt;
        }
    }

    private static String value(Map<String, String> settings, String key) {
        String v = settings.get(key);
        return v == null || v.isBlank() ? null : v.strip();
    }
}
