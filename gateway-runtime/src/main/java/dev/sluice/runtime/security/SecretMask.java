package dev.sluice.runtime.security;

/**
 * The one masked form of a key Sluice shows (issue 32): {@code /api/keys}, {@code /api/providers}
 * and the dashboard all show {@code sk-…abcd} — the first 3 characters, an ellipsis, the last 4 —
 * enough to tell keys apart and to match one against a provider's console, never enough to use.
 * A secret shorter than {@link #MIN_SHOWN_LENGTH} shows as {@link #HIDDEN}: 7 of fewer than 16
 * characters would give too much of it away.
 */
public final class SecretMask {

    /** The shortest secret whose ends are shown. */
    public static final int MIN_SHOWN_LENGTH = 16;
    /** What a short secret shows as. */
    public static final String HIDDEN = "****";

    private SecretMask() {
    }

    /**
     * The masked form.
     *
     * @param secret the secret, or null
     * @return e.g. {@code sk-…abcd}, {@value #HIDDEN} for a short secret, null for null
     */
    public static String of(String secret) {
        if (secret == null) {
            return null;
        }
        return secret.length() < MIN_SHOWN_LENGTH ? HIDDEN : secret.substring(0, 3) + "…" + secret.substring(secret.length() - 4);
    }
}
