package dev.sluice.runtime.oauth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/** PKCE S256 (RFC 7636 §4) and the unguessable values of a flow: verifier, {@code state}, flow id. */
final class Pkce {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    private Pkce() {
    }

    /** 32 random bytes, base64url: 43 characters, the RFC's recommended verifier. */
    static String verifier() {
        return random(32);
    }

    /** {@code BASE64URL(SHA256(ASCII(verifier)))}. */
    static String challenge(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return URL.encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** A random base64url string of {@code bytes} random bytes (a state, a flow id). */
    static String random(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return URL.encodeToString(b);
    }
}
