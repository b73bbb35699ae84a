package dev.sluice.api.oauth;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.Experimental;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How to log in to one provider's subscription accounts (issue 36): the flows it offers, its
 * endpoints and client, and how its token answer becomes a connection. The host runs the flows
 * (PKCE S256 verifier and challenge, single-use {@code state}, device-code polling) and the later
 * refreshes; the plugin only describes.
 *
 * <p>The operator may point every endpoint elsewhere with the plugin's settings
 * {@code plugins.settings.<plugin>.oauthAuthorizeUrl}, {@code .oauthTokenUrl},
 * {@code .oauthDeviceUrl}, {@code .oauthClientId}, {@code .oauthClientSecret},
 * {@code .oauthRedirectUri}, {@code .oauthScopes}
 * (space-separated) and {@code .upstreamBaseUrl}, and for an {@link DeviceProtocol#OPENAI_DEVICE_AUTH}
 * login {@code .oauthDevicePollUrl}, {@code .oauthDeviceVerificationUrl} and
 * {@code .oauthDeviceRedirectUri}; the host applies them over the description, so a plugin gets
 * them without code.
 *
 * <pre>{@code
 * OAuthLogin.builder("acme")
 *     .flows(OAuthFlow.PKCE)
 *     .authorizeUrl("https://acme.example/oauth/authorize")
 *     .tokenUrl("https://acme.example/oauth/token")
 *     .clientId("public-client-id")
 *     .redirectUri("https://acme.example/oauth/code")
 *     .scopes(List.of("inference"))
 *     .accountMapper(a -> OAuthAccount.standard(a).email(a.nested("account", "email")).build())
 *     .build();
 * }</pre>
 */
@Experimental("issue 36: subscription logins are new")
public final class OAuthLogin {

    private final String provider;
    private final Set<OAuthFlow> flows;
    private final String authorizeUrl;
    private final String tokenUrl;
    private final String deviceUrl;
    private final String clientId;
    private final String clientSecret;
    private final List<String> scopes;
    private final String redirectUri;
    private final Map<String, String> authorizeParams;
    private final TokenEncoding tokenEncoding;
    private final boolean stateInTokenRequest;
    private final boolean devicePkce;
    private final DeviceProtocol deviceProtocol;
    private final String devicePollUrl;
    private final String deviceVerificationUrl;
    private final String deviceRedirectUri;
    private final String upstreamBaseUrl;
    private final OAuthAccountMapper accountMapper;

    private OAuthLogin(Builder b) {
        this.provider = requireNonNull(b.provider, "provider is null");
        if (b.flows.isEmpty()) {
            throw new IllegalArgumentException("OAuth login of '" + provider + "' offers no flow");
        }
        this.flows = Collections.unmodifiableSet(EnumSet.copyOf(b.flows));
        this.tokenUrl = url("tokenUrl", requireNonNull(b.tokenUrl, "tokenUrl is null"));
        this.authorizeUrl = b.authorizeUrl == null ? null : url("authorizeUrl", b.authorizeUrl);
        this.deviceUrl = b.deviceUrl == null ? null : url("deviceUrl", b.deviceUrl);
        this.clientId = requireNonNull(b.clientId, "clientId is null");
        if (clientId.isBlank()) {
            throw new IllegalArgumentException("clientId of '" + provider + "' is blank");
        }
        this.clientSecret = b.clientSecret == null || b.clientSecret.isBlank() ? null : b.clientSecret;
        this.scopes = List.copyOf(b.scopes);
        this.redirectUri = b.redirectUri;
        this.authorizeParams = Collections.unmodifiableMap(new LinkedHashMap<>(b.authorizeParams));
        this.tokenEncoding = requireNonNull(b.tokenEncoding, "tokenEncoding is null");
        this.stateInTokenRequest = b.stateInTokenRequest;
        this.devicePkce = b.devicePkce;
        this.deviceProtocol = requireNonNull(b.deviceProtocol, "deviceProtocol is null");
        this.devicePollUrl = b.devicePollUrl == null ? null : url("devicePollUrl", b.devicePollUrl);
        this.deviceVerificationUrl = b.deviceVerificationUrl == null ? null : url("deviceVerificationUrl", b.deviceVerificationUrl);
        this.deviceRedirectUri = b.deviceRedirectUri == null || b.deviceRedirectUri.isBlank() ? null : b.deviceRedirectUri;
        this.upstreamBaseUrl = b.upstreamBaseUrl == null ? null : url("upstreamBaseUrl", b.upstreamBaseUrl);
        this.accountMapper = requireNonNull(b.accountMapper, "accountMapper is null");
        if (flows.contains(OAuthFlow.PKCE) && (authorizeUrl == null || redirectUri == null || redirectUri.isBlank())) {
            throw new IllegalArgumentException("OAuth login of '" + provider + "' offers pkce but lacks authorizeUrl or redirectUri");
        }
        if (flows.contains(OAuthFlow.DEVICE) && deviceUrl == null) {
            throw new IllegalArgumentException("OAuth login of '" + provider + "' offers device but lacks deviceUrl");
        }
        if (flows.contains(OAuthFlow.DEVICE) && deviceProtocol == DeviceProtocol.OPENAI_DEVICE_AUTH
                && (devicePollUrl == null || deviceVerificationUrl == null || deviceRedirectUri == null)) {
            throw new IllegalArgumentException("OAuth login of '" + provider + "' uses " + deviceProtocol
                    + " but lacks devicePollUrl, deviceVerificationUrl or deviceRedirectUri");
        }
    }

    /**
     * A builder.
     *
     * @param provider the provider id the login creates connections of (one of the plugin's own)
     * @return the builder
     */
    public static Builder builder(String provider) {
        return new Builder(provider);
    }

    /**
     * A builder holding this description, e.g. for the host to apply the operator's settings.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder b = new Builder(provider);
        b.flows.addAll(flows);
        b.authorizeUrl = authorizeUrl;
        b.tokenUrl = tokenUrl;
        b.deviceUrl = deviceUrl;
        b.clientId = clientId;
        b.clientSecret = clientSecret;
        b.scopes = scopes;
        b.redirectUri = redirectUri;
        b.authorizeParams.putAll(authorizeParams);
        b.tokenEncoding = tokenEncoding;
        b.stateInTokenRequest = stateInTokenRequest;
        b.devicePkce = devicePkce;
        b.deviceProtocol = deviceProtocol;
        b.devicePollUrl = devicePollUrl;
        b.deviceVerificationUrl = deviceVerificationUrl;
        b.deviceRedirectUri = deviceRedirectUri;
        b.upstreamBaseUrl = upstreamBaseUrl;
        b.accountMapper = accountMapper;
        return b;
    }

    /** @return the provider id */
    public String provider() {
        return provider;
    }

    /** @return the flows offered; the first is the default */
    public Set<OAuthFlow> flows() {
        return flows;
    }

    /** @return the authorization endpoint (PKCE), or null */
    public String authorizeUrl() {
        return authorizeUrl;
    }

    /** @return the token endpoint (code exchange, device polling, refresh) */
    public String tokenUrl() {
        return tokenUrl;
    }

    /** @return the device authorization endpoint, or null */
    public String deviceUrl() {
        return deviceUrl;
    }

    /** @return the OAuth client id */
    public String clientId() {
        return clientId;
    }

    /** @return the client secret an installed app publishes, or null */
    public String clientSecret() {
        return clientSecret;
    }

    /** @return the scopes requested */
    public List<String> scopes() {
        return scopes;
    }

    /** @return the redirect URI registered for the client (PKCE), or null */
    public String redirectUri() {
        return redirectUri;
    }

    /** @return extra query parameters of the authorize URL (e.g. Claude's {@code code=true}) */
    public Map<String, String> authorizeParams() {
        return authorizeParams;
    }

    /** @return how token requests are encoded */
    public TokenEncoding tokenEncoding() {
        return tokenEncoding;
    }

    /** @return whether the code exchange also sends {@code state} (Anthropic's endpoint wants it) */
    public boolean stateInTokenRequest() {
        return stateInTokenRequest;
    }

    /** @return whether the device flow also carries a PKCE challenge and verifier (Qwen's does) */
    public boolean devicePkce() {
        return devicePkce;
    }

    /** @return how the device flow talks to the server (default {@link DeviceProtocol#RFC_8628}) */
    public DeviceProtocol deviceProtocol() {
        return deviceProtocol;
    }

    /**
     * Where an {@link DeviceProtocol#OPENAI_DEVICE_AUTH} flow polls; RFC 8628 polls the
     * {@link #tokenUrl()}.
     *
     * @return the poll endpoint, or null
     */
    public String devicePollUrl() {
        return devicePollUrl;
    }

    /**
     * Where the operator enters the user code, for a server whose device answer does not say
     * ({@link DeviceProtocol#OPENAI_DEVICE_AUTH}'s); a {@code verification_uri} in the answer wins.
     *
     * @return the URL, or null
     */
    public String deviceVerificationUrl() {
        return deviceVerificationUrl;
    }

    /**
     * The {@code redirect_uri} of an {@link DeviceProtocol#OPENAI_DEVICE_AUTH} flow's code
     * exchange (OpenAI's {@code {issuer}/deviceauth/callback}), distinct from the PKCE
     * {@link #redirectUri()}.
     *
     * @return the URI, or null
     */
    public String deviceRedirectUri() {
        return deviceRedirectUri;
    }

    /** @return the base URL of connections created by login, or null for the provider's default */
    public String upstreamBaseUrl() {
        return upstreamBaseUrl;
    }

    /** @return the hook turning a token answer into the connection's credentials and identity */
    public OAuthAccountMapper accountMapper() {
        return accountMapper;
    }

    @Override
    public String toString() {
        return "OAuthLogin[provider=" + provider + ", flows=" + flows + ", tokenUrl=" + tokenUrl + "]";
    }

    private String url(String field, String value) {
        try {
            URI u = new URI(value.strip());
            String scheme = u.getScheme();
            if (u.getHost() == null || !("https".equalsIgnoreCase(scheme) || "http".equalsIgnoreCase(scheme))) {
                throw new IllegalArgumentException(field + " of '" + provider + "' is not an absolute http(s) URL: " + value);
            }
            return value.strip();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(field + " of '" + provider + "' is not a URL: " + e.getReason());
        }
    }

    /** Builds an {@link OAuthLogin}. */
    public static final class Builder {
        private final String provider;
        private final Set<OAuthFlow> flows = EnumSet.noneOf(OAuthFlow.class);
        private String authorizeUrl;
        private String tokenUrl;
        private String deviceUrl;
        private String clientId;
        private String clientSecret;
        private List<String> scopes = List.of();
        private String redirectUri;
        private final Map<String, String> authorizeParams = new LinkedHashMap<>();
        private TokenEncoding tokenEncoding = TokenEncoding.FORM;
        private boolean stateInTokenRequest;
        private boolean devicePkce;
        private DeviceProtocol deviceProtocol = DeviceProtocol.RFC_8628;
        private String devicePollUrl;
        private String deviceVerificationUrl;
        private String deviceRedirectUri;
        private String upstreamBaseUrl;
        private OAuthAccountMapper accountMapper = OAuthAccountMapper.STANDARD;

        private Builder(String provider) {
            this.provider = provider;
        }

        /** @param v the flows offered (replacing any set before) @return this */
        public Builder flows(OAuthFlow... v) {
            flows.clear();
            flows.addAll(List.of(v));
            return this;
        }

        /** @param v the authorization endpoint @return this */
        public Builder authorizeUrl(String v) {
            this.authorizeUrl = v;
            return this;
        }

        /** @param v the token endpoint @return this */
        public Builder tokenUrl(String v) {
            this.tokenUrl = v;
            return this;
        }

        /** @param v the device authorization endpoint @return this */
        public Builder deviceUrl(String v) {
            this.deviceUrl = v;
            return this;
        }

        /** @param v the client id @return this */
        public Builder clientId(String v) {
            this.clientId = v;
            return this;
        }

        /** @param v the published client secret of an installed app, or null @return this */
        public Builder clientSecret(String v) {
            this.clientSecret = v;
            return this;
        }

        /** @param v the scopes @return this */
        public Builder scopes(List<String> v) {
            this.scopes = new ArrayList<>(requireNonNull(v, "scopes is null"));
            return this;
        }

        /** @param v the redirect URI @return this */
        public Builder redirectUri(String v) {
            this.redirectUri = v;
            return this;
        }

        /**
         * Adds a query parameter to the authorize URL.
         *
         * @param name parameter name
         * @param value parameter value
         * @return this
         */
        public Builder authorizeParam(String name, String value) {
            authorizeParams.put(requireNonNull(name, "name is null"), requireNonNull(value, "value is null"));
            return this;
        }

        /** @param v how token requests are encoded (default {@link TokenEncoding#FORM}) @return this */
        public Builder tokenEncoding(TokenEncoding v) {
            this.tokenEncoding = v;
            return this;
        }

        /** @param v whether the code exchange sends {@code state} too @return this */
        public Builder stateInTokenRequest(boolean v) {
            this.stateInTokenRequest = v;
            return this;
        }

        /** @param v whether the device flow carries PKCE @return this */
        public Builder devicePkce(boolean v) {
            this.devicePkce = v;
            return this;
        }

        /** @param v how the device flow talks to the server (default {@link DeviceProtocol#RFC_8628}) @return this */
        public Builder deviceProtocol(DeviceProtocol v) {
            this.deviceProtocol = v;
            return this;
        }

        /** @param v the poll endpoint of an {@link DeviceProtocol#OPENAI_DEVICE_AUTH} flow @return this */
        public Builder devicePollUrl(String v) {
            this.devicePollUrl = v;
            return this;
        }

        /** @param v where the operator enters the user code when the server does not say @return this */
        public Builder deviceVerificationUrl(String v) {
            this.deviceVerificationUrl = v;
            return this;
        }

        /** @param v the redirect URI of an {@link DeviceProtocol#OPENAI_DEVICE_AUTH} flow's code exchange @return this */
        public Builder deviceRedirectUri(String v) {
            this.deviceRedirectUri = v;
            return this;
        }

        /** @param v the base URL of connections created by login, or null @return this */
        public Builder upstreamBaseUrl(String v) {
            this.upstreamBaseUrl = v;
            return this;
        }

        /** @param v the token-answer hook (default {@link OAuthAccountMapper#STANDARD}) @return this */
        public Builder accountMapper(OAuthAccountMapper v) {
            this.accountMapper = v;
            return this;
        }

        /**
         * Builds and validates.
         *
         * @return the description
         * @throws IllegalArgumentException or NullPointerException naming what is missing or invalid
         */
        public OAuthLogin build() {
            return new OAuthLogin(this);
        }
    }
}
