package dev.sluice.runtime.http;

import dev.sluice.runtime.store.Connection;

/**
 * Removes a connection's own secrets from upstream text before it reaches a client (SEC-2): an
 * upstream that echoes the key it was sent ("Incorrect API key provided: sk-…") must not leak it.
 */
final class Secrets {

    private Secrets() {
    }

    static String scrub(String text, Connection c) {
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
