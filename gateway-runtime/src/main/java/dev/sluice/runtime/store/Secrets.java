package dev.sluice.runtime.store;


/**
 * Removes a connection's own secrets from upstream text before it reaches a client (SEC-2): an
 * upstream that echoes the key it was sent ("Incorrect API key provided: sk-…") must not leak it.
 */
public final class Secrets {

    private Secrets() {
    }

    /**
     * Replaces the connection's API key and OAuth tokens in a text with {@code ****}.
     *
     * @param text the text, or null
     * @param c the connection, or null
     * @return the scrubbed text
     */
    public static String scrub(String text, Connection c) {
        if (text == null || c == null) {
            return text;
        }
        String out = text;
        out = replace(out, c.apiKey());
        if (c.oauth() != null) {
            out = replace(out, c.oauth().accessToken());
            out = replace(out, c.oauth().refreshToken());
        }
        out = replace(out, proxyPassword(c.proxyUrl()));
        return out;
    }

    /** The password of an {@code http://user:password@host:port} proxy URL, or null. */
    static String proxyPassword(String proxyUrl) {
        if (proxyUrl == null) {
            return null;
        }
        int scheme = proxyUrl.indexOf("://");
        int at = proxyUrl.lastIndexOf('@');
        if (scheme < 0 || at <= scheme) {
            return null;
        }
        String userInfo = proxyUrl.substring(scheme + 3, at);
        int colon = userInfo.indexOf(':');
        return colon < 0 ? null : userInfo.substring(colon + 1);
    }

    private static String replace(String text, String secret) {
        return secret == null || secret.length() < 4 ? text : text.replace(secret, "****");
    }
}
