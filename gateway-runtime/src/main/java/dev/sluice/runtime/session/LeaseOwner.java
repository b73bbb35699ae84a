package dev.sluice.runtime.session;

import dev.sluice.runtime.security.KeyHasher;
import java.util.regex.Pattern;

/**
 * The lease owner token a client chooses (SPEC SL-2): {@code vlo_} and 43 base64url characters
 * (256 random bits), sent in {@code X-Sluice-Lease-Owner}. Only its SHA-256 is kept.
 */
public final class LeaseOwner {

    /** The header that carries the owner token. */
    public static final String HEADER = "X-Sluice-Lease-Owner";
    /** The header that carries the generation a managed request claims. */
    public static final String GENERATION_HEADER = "X-Sluice-Lease-Generation";

    private static final Pattern TOKEN = Pattern.compile("vlo_[A-Za-z0-9_-]{43}");

    private LeaseOwner() {
    }

    /**
     * Whether a token has the owner form.
     *
     * @param token the header value
     * @return true when valid
     */
    public static boolean valid(String token) {
        return token != null && TOKEN.matcher(token).matches();
    }

    /**
     * The token's hash, hex.
     *
     * @param token a valid token
     * @return the SHA-256, hex
     */
    public static String hash(String token) {
        // the token is ASCII (the pattern), so its UTF-8 bytes are its ASCII bytes
        return KeyHasher.hash(token);
    }
}
