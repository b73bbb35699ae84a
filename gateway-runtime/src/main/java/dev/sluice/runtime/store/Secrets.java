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
        return out;
    }

    private static String replace(String text, String secret) {
        return secret == null || secret.length() < 4 ? text : text.replace(secret, "****");
    }
}
