package dev.sluice.runtime.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Hashes and generates gateway keys. Keys are 32 random bytes, so a plain SHA-256 is enough (no
 * password stretching needed); comparisons use {@link MessageDigest#isEqual}, which takes the
 * same time wherever the inputs differ.
 */
public final class KeyHasher {

    /** Prefix of client keys, so they are recognisable in a leaked-secret scan. */
    public static final String CLIENT_KEY_PREFIX = "sk-sluice-";
    /** Prefix of generated admin keys. */
    public static final String ADMIN_KEY_PREFIX = "sk-sluice-admin-";

    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * A digest to clone: every client request hashes its key, and {@code getInstance} looks the
     * algorithm up among the security providers each time (issue 26); a clone does not.
     */
    private static final MessageDigest SHA256 = sha256();

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private KeyHasher() {
    }

    /**
     * SHA-256 of a key, hex encoded.
     *
     * @param key the key
     * @return 64 hex characters
     */
    public static String hash(String key) {
        MessageDigest md;
        try {
            md = (MessageDigest) SHA256.clone();
        } catch (CloneNotSupportedException e) {
            md = sha256();
        }
        return HexFormat.of().formatHex(md.digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Constant-time comparison of two hashes.
     *
     * @param a a hash
     * @param b another hash
     * @return true when equal
     */
    public static boolean matches(String a, String b) {
        if (a == null || b == null) {
            return false;
        }
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * A new random key.
     *
     * @param prefix the prefix
     * @return prefix + 43 base64url characters
     */
    public static String generate(String prefix) {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * The masked form of a key, for listings (never enough to use it): {@link SecretMask#of}.
     *
     * @param key the key
     * @return e.g. {@code sk-…AbCd}
     */
    public static String preview(String key) {
        // issue 32: one masked form for client keys and provider keys alike
        return SecretMask.of(key);
    }
}
