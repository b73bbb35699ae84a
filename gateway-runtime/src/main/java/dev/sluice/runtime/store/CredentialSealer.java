package dev.sluice.runtime.store;

/**
 * Seals credentials before the store writes them and opens them when it reads them (SPEC SEC-3).
 * The store needs only these two operations; the key and its management live in the security
 * package, which depends on the store (for its settings) — so the store names this interface and
 * never the security package, and the two packages form no cycle.
 */
public interface CredentialSealer {

    /**
     * Encrypts a secret.
     *
     * @param plain the secret, or null
     * @return the sealed form, or null for null
     */
    String seal(String plain);

    /**
     * Decrypts a value made by {@link #seal}.
     *
     * @param sealed a sealed value, or null
     * @return the secret, or null for null
     * @throws IllegalStateException when the value cannot be opened (the message names no secret)
     */
    String open(String sealed);
}
