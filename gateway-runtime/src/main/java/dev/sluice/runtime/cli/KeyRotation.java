package dev.sluice.runtime.cli;

import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.SealedCredentials;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * {@code bin/sluice rotate-key} (SEC-3): re-encrypts every stored credential (API keys, OAuth
 * tokens, URLs with a password) under a new secret key in one database transaction. With the key
 * in {@code <dataDir>/secret.key}, a new key is generated: written first to {@code secret.key.new},
 * then the database is re-encrypted, then the file replaces {@code secret.key} (should the process
 * die between the last two steps, {@code secret.key.new} is the key to keep). With the key from
 * {@code SLUICE_SECRET_KEY} / {@code security.secretKey}, the new key comes from
 * {@code SLUICE_NEW_SECRET_KEY} and the operator swaps the setting afterwards. Refuses while a
 * server answers on the configured address.
 */
final class KeyRotation {

    /** Env: the new key when the current one is configured. */
    static final String ENV_NEW_KEY = "SLUICE_NEW_SECRET_KEY";

    private KeyRotation() {
    }

    static int run(Path home, Map<String, String> env, PrintStream out, PrintStream err) {
        SluiceConfig config;
        try {
            config = ConfigLoader.load(home, env);
        } catch (RuntimeException e) {
            err.println("sluice rotate-key: the configuration does not load: " + e.getMessage());
            return Cli.FAILED;
        }
        if (listening(config)) {
            err.println("sluice rotate-key: a server answers on " + config.host() + ":" + config.port() + "; stop it first (the running"
                    + " server holds the old key)");
            return Cli.FAILED;
        }
        Path dbFile = config.dataDir().resolve(Database.FILE_NAME);
        if (!Files.exists(dbFile)) {
            err.println("sluice rotate-key: no database at " + dbFile + " (nothing to re-encrypt)");
            return Cli.FAILED;
        }
        boolean fromFile = config.secretKey() == null;
        String newKey = env.get(ENV_NEW_KEY);
        if (!fromFile && (newKey == null || newKey.isBlank())) {
            err.println("sluice rotate-key: the key is configured (SLUICE_SECRET_KEY or security.secretKey): set " + ENV_NEW_KEY
                    + " to the new key (base64 of 32 random bytes, e.g. openssl rand -base64 32)");
            return Cli.USAGE;
        }
        if (newKey == null || newKey.isBlank()) {
            byte[] bytes = new byte[32];
            new SecureRandom().nextBytes(bytes);
            newKey = Base64.getEncoder().encodeToString(bytes);
        }
        SecretBox from;
        SecretBox to;
        try {
            from = SecretBox.open(config.secretKey(), config.dataDir(), false);
            to = SecretBox.fromBase64(newKey.strip());
        } catch (RuntimeException e) {
            err.println("sluice rotate-key: " + e.getMessage());
            return Cli.FAILED;
        }
        Path keyFile = config.dataDir().resolve("secret.key");
        Path pending = config.dataDir().resolve("secret.key.new");
        try {
            if (fromFile) {
                writeOwnerOnly(pending, newKey.strip());
            }
            int n;
            try (Database db = Database.open(config.dataDir())) {
                n = SealedCredentials.reseal(db, from, to);
            }
            if (fromFile) {
                Files.move(pending, keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                out.println("rotated: " + n + " stored value(s) re-encrypted; the new key is in " + keyFile + " (back it up with the"
                        + " database)");
            } else {
                out.println("rotated: " + n + " stored value(s) re-encrypted; now set SLUICE_SECRET_KEY (or security.secretKey) to the"
                        + " new key before starting the server");
            }
            return Cli.OK;
        } catch (IOException | RuntimeException e) {
            err.println("sluice rotate-key: failed, nothing changed in the database: " + e.getMessage());
            try {
                Files.deleteIfExists(pending);
            } catch (IOException ignored) {
                // the pending key file is harmless
            }
            return Cli.FAILED;
        }
    }

    private static void writeOwnerOnly(Path file, String key) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException notPosix) {
            Files.createFile(file);
        }
        Files.writeString(file, key, StandardCharsets.US_ASCII, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
    }

    private static boolean listening(SluiceConfig config) {
        if (config.port() == 0) {
            return false;
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(config.host(), config.port()), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
