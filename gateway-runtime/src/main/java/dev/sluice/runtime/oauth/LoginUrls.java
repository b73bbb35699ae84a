package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthLogin;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** The URLs of a login: the authorize URL the operator opens, and the query of a pasted redirect URL. */
final class LoginUrls {

    private LoginUrls() {
    }

    /** The authorize URL: the login's extra parameters, then the RFC 6749 / 7636 ones, S256 challenge and state last. */
    static String authorizeUrl(OAuthLogin login, LoginFlow flow) {
        Map<String, String> q = new LinkedHashMap<>(login.authorizeParams());
        q.put("client_id", login.clientId());
        q.put("response_type", "code");
        q.put("redirect_uri", login.redirectUri());
        if (!login.scopes().isEmpty()) {
            q.put("scope", String.join(" ", login.scopes()));
        }
        q.put("code_challenge", Pkce.challenge(flow.verifier));
        q.put("code_challenge_method", "S256");
        q.put("state", flow.state);
        StringBuilder sb = new StringBuilder(login.authorizeUrl());
        char sep = login.authorizeUrl().contains("?") ? '&' : '?';
        for (Map.Entry<String, String> e : q.entrySet()) {
            sb.append(sep).append(enc(e.getKey())).append('=').append(enc(e.getValue()));
            sep = '&';
        }
        return sb.toString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The query parameters of a pasted URL (first value of each). */
    static Map<String, String> query(String url) {
        URI u;
        try {
            u = new URI(url.strip());
        } catch (java.net.URISyntaxException e) {
            throw LoginException.badRequest("callbackUrl", "'callbackUrl' is not a valid URL: " + e.getReason() + ".");
        }
        Map<String, String> out = new LinkedHashMap<>();
        String raw = u.getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                String k = java.net.URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String v = eq < 0 ? "" : java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                out.putIfAbsent(k, v);
            }
        }
        return out;
    }
}
