package dev.sluice.runtime.security;

import dev.sluice.runtime.store.CredentialSealer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals provider credentials at rest (SPEC SEC-3) with AES-256-GCM. The key comes from
 * {@code SLUICE_SECRET_KEY} / {@code security.secretKey}, else from {@code <dataDir>/secret.key},
 * generated with owner-only permissions on first start.
 */
public final class SecretBox implements CredentialSealer {

    private static final String PREFIX = "v1:";
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private SecretBox(byte[] keyBytes) {
        if (keyBytes.length != 32) {
            throw new IllegalArgumentException("the secret key must be 32 bytes (base64 of 32 random bytes), got " + keyBytes.length);
        }
        this.key = new SecretKeySpec(keyBytes, "AES");
    }

    /**
     * A box from a base64 key.
     *
     * @param base64Key 32 bytes, base64 encoded
     * @return the box
     */
    public static SecretBox fromBase64(String base64Key) {
        try {
            return new SecretBox(Base64.getDecoder().decode(base64Key.strip()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("SLUICE_SECRET_KEY is not valid base64 of 32 bytes");
        }
    }

    /**
     * The configured key, else the key file in the data folder, created when missing.
     *
     * @param configured configured base64 key, or null
     * @param dataDir data folder
     * @return the box
     */
    public static SecretBox open(String configured, Path dataDir) {
        return open(configured, dataDir, true);
    }

    /**
     * Like {@link #open(String, Path)}, but refuses to generate a new key when told that sealed
     * credentials exist: a new key could never read them, and would be left on disk.
     *
     * @param configured configured base64 key, or null
     * @param dataDir data folder
     * @param mayGenerate whether a missing key file may be generated
     * @return the box
     */
    public static SecretBox open(String configured, Path dataDir, boolean mayGenerate) {
        if (configured != null) {
            return fromBase64(configured);
        }
        Path file = dataDir.resolve("secret.key");
        if (!mayGenerate && !Files.exists(file)) {
            throw new IllegalStateException(file + " is missing but the database holds encrypted credentials: restore the key file"
                    + " from the backup it was made with, or set SLUICE_SECRET_KEY");
        }
        try {
            if (Files.exists(file)) {
                try {
                    return fromBase64(Files.readString(file, StandardCharsets.US_ASCII));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + " does not hold a valid key (base64 of 32 bytes)");
                }
            }
            byte[] bytes = new byte[32];
            RANDOM.nextBytes(bytes);
            Files.createDirectories(dataDir);
            try {
                // created owner-only from the start: no moment where the umask could expose it
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException notPosix) {
                Files.createFile(file);
            }
            Files.writeString(file, Base64.getEncoder().encodeToString(bytes), StandardCharsets.US_ASCII,
                    StandardOpenOption.WRITE, StandardOpenOption.SYNC);
            return new SecretBox(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create " + file, e);
        }
    }

    /**
     * Encrypts a secret.
     *
     * @param plain the secret, or null
     * @return {@code v1:<base64 iv+ciphertext>}, or null for null
     */
    @Override
    public String seal(String plain) {
        if (plain == null) {
            return null;
        }
        try {
            byte[] iv = new byte[IV_BYTES];
            RANDOM.nextBytes(iv);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            byte[] ct = c.doFinal(plain.getBytes(StandardCharsets.UTF_8));
            return PREFIX + Base64.getEncoder().encodeToString(ByteBuffer.allocate(iv.length + ct.length).put(iv).put(ct).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is unavailable", e);
        }
    }

    /**
     * Decrypts a sealed secret.
     *
     * @param sealed output of {@link #seal}, or null
     * @return the secret, or null for null
     * @throws IllegalStateException when the value was sealed with another key (message names no secret)
     */
    @Override
    public String open(String sealed) {
        if (sealed == null) {
            return null;
        }
        if (!sealed.startsWith(PREFIX)) {
            throw new IllegalStateException("stored credential has an unknown format");
        }
        try {
            byte[] all = Base64.getDecoder().decode(sealed.substring(PREFIX.length()));
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, all, 0, IV_BYTES));
            return new String(c.doFinal(all, IV_BYTES, all.length - IV_BYTES), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot decrypt a stored credential: wrong SLUICE_SECRET_KEY or damaged data");
        }
    }
}
