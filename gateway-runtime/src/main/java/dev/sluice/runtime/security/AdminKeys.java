package dev.sluice.runtime.security;

import dev.sluice.runtime.store.SettingsStore;
import java.io.PrintStream;

/**
 * Decides the admin key at start-up: the configured one ({@code SLUICE_ADMIN_KEY} /
 * {@code security.adminKey}) when set; else the hash stored on an earlier start; else a new key,
 * generated now, stored as a hash and printed once.
 */
public final class AdminKeys {

    /** Settings key of the stored admin-key hash (JSON string). */
    static final String SETTING = "adminKeyHash";

    private AdminKeys() {
    }

    /**
     * The admin key's hash.
     *
     * @param configured configured admin key, or null
     * @param settings the settings store
     * @param console where a generated key is printed
     * @return the SHA-256 hex of the admin key
     */
    public static String resolveHash(String configured, SettingsStore settings, PrintStream console) {
        if (configured != null) {
            return KeyHasher.hash(configured);
        }
        var stored = settings.get(SETTING);
        if (stored.isPresent()) {
            String hash = stored.get().strip();
            if (hash.length() >= 2 && hash.startsWith("\"") && hash.endsWith("\"")) {
                hash = hash.substring(1, hash.length() - 1);
            }
            return hash;
        }
        String key = KeyHasher.generate(KeyHasher.ADMIN_KEY_PREFIX);
        String hash = KeyHasher.hash(key);
        settings.put(SETTING, "\"" + hash + "\"");
        console.println("Generated admin key (shown once; store it now, only its hash is kept): " + key);
        console.flush();
        return hash;
    }
}
