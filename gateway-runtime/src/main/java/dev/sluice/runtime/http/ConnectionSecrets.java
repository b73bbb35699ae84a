package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.store.OAuthTokens;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * The secrets of a provider connection in admin JSON (SEC-2): masked when rendered, checked when
 * received, and the masked form sent back meaning "keep the stored one".
 */
final class ConnectionSecrets {

    private ConnectionSecrets() {
    }

    /** A URL with its user-info password and query hidden: they may hold credentials (SEC-2). */
    static String maskUrl(String url) {
        if (url == null) {
            return null;
        }
        try {
            URI u = new URI(url);
            if (u.getUserInfo() == null && u.getQuery() == null) {
                return url;
            }
            String user = u.getUserInfo() == null ? null : u.getUserInfo().split(":", 2)[0] + (u.getUserInfo().contains(":") ? ":****" : "");
            return new URI(u.getScheme(), user, u.getHost(), u.getPort(), u.getPath(), u.getQuery() == null ? null : "****", null).toString();
        } catch (URISyntaxException e) {
            return "****";
        }
    }

    /** The one masked form ({@code sk-…abcd}) that {@code /api/keys} shows too. */
    static String mask(String secret) {
        return dev.sluice.runtime.security.SecretMask.of(secret);
    }

    /**
     * Validates a secret: visible ASCII only (it goes into an HTTP header). The masked form of the
     * stored secret, as GET renders it, means "unchanged", so GET → edit → PUT keeps the key.
     */
    static String credential(String field, String value, String stored) {
        if (value == null) {
            return null;
        }
        if (stored != null && value.equals(mask(stored))) {
            return stored;
        }
        String v = value.strip();
        if (v.isEmpty()) {
            return v;
        }
        if (v.contains("…") || v.equals("****")) {
            throw ApiException.badRequest(field, "'" + field + "' looks masked; send the real secret, or leave it out to keep the stored one.");
        }
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch < 0x21 || ch > 0x7e) {
                throw ApiException.badRequest(field, "'" + field + "' must contain only visible ASCII characters (it is sent in an HTTP header).");
            }
        }
        return v;
    }

    static OAuthTokens parseOAuth(JsonNode n, OAuthTokens stored) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("oauth", "'oauth' must be an object {accessToken, refreshToken?, expiresAt?}.");
        }
        JsonNode access = n.get("accessToken");
        String accessToken;
        if (access == null || access.isNull()) {
            if (stored == null) {
                throw ApiException.badRequest("oauth.accessToken", "'oauth.accessToken' is required and must be a non-empty string.");
            }
            accessToken = stored.accessToken();
        } else if (!access.isTextual() || access.asText().isBlank()) {
            throw ApiException.badRequest("oauth.accessToken", "'oauth.accessToken' must be a non-empty string.");
        } else {
            accessToken = credential("oauth.accessToken", access.asText(), stored == null ? null : stored.accessToken());
        }
        JsonNode refresh = n.get("refreshToken");
        if (refresh != null && !refresh.isNull() && !refresh.isTextual()) {
            throw ApiException.badRequest("oauth.refreshToken", "'oauth.refreshToken' must be a string.");
        }
        String refreshToken = refresh == null ? (stored == null ? null : stored.refreshToken())
                : refresh.isNull() ? null
                : credential("oauth.refreshToken", refresh.asText(), stored == null ? null : stored.refreshToken());
        JsonNode exp = n.get("expiresAt");
        if (exp != null && !exp.isNull() && (!exp.isIntegralNumber() || !exp.canConvertToLong())) {
            throw ApiException.badRequest("oauth.expiresAt", "'oauth.expiresAt' must be epoch milliseconds.");
        }
        Long expiresAt = exp == null ? (stored == null ? null : stored.expiresAt()) : exp.isNull() ? null : exp.asLong();
        return new OAuthTokens(accessToken, refreshToken, expiresAt);
    }
}
