package dev.sluice.api.oauth;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.Experimental;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a login (or a refresh) gives a connection: its tokens, and who the account is. The host
 * stores the tokens encrypted and the identity in the connection's metadata; a second login whose
 * {@link #identity()} matches an existing connection of the provider updates that connection.
 * {@link #toString()} never shows a token.
 */
@Experimental("issue 36: subscription logins are new")
public final class OAuthAccount {

    private final String accessToken;
    private final String refreshToken;
    private final Long expiresAt;
    private final String accountId;
    private final String email;
    private final String plan;
    private final String resourceUrl;
    private final Map<String, String> metadata;

    private OAuthAccount(Builder b) {
        this.accessToken = requireNonNull(b.accessToken, "accessToken is null");
        if (accessToken.isBlank()) {
            throw new IllegalArgumentException("accessToken is blank");
        }
        this.refreshToken = blankToNull(b.refreshToken);
        this.expiresAt = b.expiresAt;
        this.accountId = blankToNull(b.accountId);
        this.email = blankToNull(b.email);
        this.plan = blankToNull(b.plan);
        this.resourceUrl = blankToNull(b.resourceUrl);
        this.metadata = Map.copyOf(b.metadata);
    }

    /**
     * A builder.
     *
     * @param accessToken the access token
     * @return the builder
     */
    public static Builder builder(String accessToken) {
        return new Builder(accessToken);
    }

    /**
     * A builder holding the RFC 6749 fields of an answer ({@code access_token}, {@code refresh_token},
     * {@code expires_in}) and {@code resource_url}, for a mapper to add the identity to.
     *
     * @param answer the token answer
     * @return the builder
     * @throws IllegalArgumentException when the answer has no {@code access_token}
     */
    public static Builder standard(OAuthTokenAnswer answer) {
        String access = answer.string("access_token");
        if (access == null) {
            throw new IllegalArgumentException("the token answer has no access_token");
        }
        return builder(access).refreshToken(answer.string("refresh_token")).expiresAt(answer.expiresAt())
                .resourceUrl(answer.string("resource_url"));
    }

    /** @return the access token */
    public String accessToken() {
        return accessToken;
    }

    /** @return the refresh token, or null */
    public String refreshToken() {
        return refreshToken;
    }

    /** @return the access token's expiry in epoch ms, or null when unknown */
    public Long expiresAt() {
        return expiresAt;
    }

    /** @return the provider's account id, or null */
    public String accountId() {
        return accountId;
    }

    /** @return the account's e-mail address, or null */
    public String email() {
        return email;
    }

    /** @return the subscription plan, or null */
    public String plan() {
        return plan;
    }

    /**
     * The base URL the account is served at, when the token answer says (Qwen's
     * {@code resource_url}); it wins over the plugin's default base URL.
     *
     * @return the URL (possibly without a scheme, as the provider sent it), or null
     */
    public String resourceUrl() {
        return resourceUrl;
    }

    /** @return further non-secret facts to keep with the connection */
    public Map<String, String> metadata() {
        return metadata;
    }

    /**
     * Who the account is, for telling a second login to the same account from a new one: the
     * account id, else the e-mail address.
     *
     * @return the identity, or null when the provider tells neither
     */
    public String identity() {
        return accountId != null ? accountId : email;
    }

    @Override
    public String toString() {
        return "OAuthAccount[accessToken=***, refreshToken=" + (refreshToken == null ? "none" : "***") + ", expiresAt=" + expiresAt
                + ", accountId=" + accountId + ", email=" + email + ", plan=" + plan + "]";
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** Builds an {@link OAuthAccount}. */
    public static final class Builder {
        private final String accessToken;
        private String refreshToken;
        private Long expiresAt;
        private String accountId;
        private String email;
        private String plan;
        private String resourceUrl;
        private final Map<String, String> metadata = new LinkedHashMap<>();

        private Builder(String accessToken) {
            this.accessToken = accessToken;
        }

        /** @param v the refresh token, or null @return this */
        public Builder refreshToken(String v) {
            this.refreshToken = v;
            return this;
        }

        /** @param v expiry in epoch ms, or null @return this */
        public Builder expiresAt(Long v) {
            this.expiresAt = v;
            return this;
        }

        /** @param v the account id, or null @return this */
        public Builder accountId(String v) {
            this.accountId = v;
            return this;
        }

        /** @param v the e-mail address, or null @return this */
        public Builder email(String v) {
            this.email = v;
            return this;
        }

        /** @param v the plan, or null @return this */
        public Builder plan(String v) {
            this.plan = v;
            return this;
        }

        /** @param v the resource URL, or null @return this */
        public Builder resourceUrl(String v) {
            this.resourceUrl = v;
            return this;
        }

        /**
         * Adds a non-secret fact; a null or blank value is skipped.
         *
         * @param key the key
         * @param value the value
         * @return this
         */
        public Builder metadata(String key, String value) {
            requireNonNull(key, "key is null");
            if (value != null && !value.isBlank()) {
                metadata.put(key, value);
            }
            return this;
        }

        /**
         * Builds.
         *
         * @return the account
         * @throws NullPointerException or IllegalArgumentException when the access token is missing
         */
        public OAuthAccount build() {
            return new OAuthAccount(this);
        }
    }
}
