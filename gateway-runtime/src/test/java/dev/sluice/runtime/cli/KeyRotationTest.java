package dev.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.testkit.TestClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/sluice rotate-key} (SEC-3): every stored secret re-encrypted under a new key, all or nothing. */
class KeyRotationTest {

    @TempDir
    Path home;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int rotate(Map<String, String> env) {
        return Cli.run(new Command.RotateKey(), home, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String connection(SecretBox box) {
        try (Database db = Database.open(home.resolve("data"))) {
            return new JdbcConnectionStore(db, box, TestClock.create()).create(new NewConnection("alpha", "a", ProviderClass.APIKEY,
                    "sk-rotate-me-0123456789", null, "http://u:pw-rotate@127.0.0.1:1/v1", 1, true, null, null, false, null, null, null)).id();
        }
    }

    @Test
    void aKeyFileIsReplacedByANewKeyAndEveryValueReadsWithIt() throws Exception {
        Path data = home.resolve("data");
        SecretBox old = SecretBox.open(null, data);
        String oldKey = Files.readString(data.resolve("secret.key"));
        String id = connection(old);

        int status = rotate(Map.of("SLUICE_DATA_DIR", data.toString(), "SLUICE_PORT", "0"));

        assertThat(status).as(err.toString()).isZero();
        assertThat(out.toString()).contains("rotated: 2 stored value(s)");
        String newKey = Files.readString(data.resolve("secret.key"));
        assertThat(newKey).isNotEqualTo(oldKey);
        assertThat(data.resolve("secret.key.new")).doesNotExist();
        try (Database db = Database.open(data)) {
            var c = new JdbcConnectionStore(db, SecretBox.fromBase64(newKey), TestClock.create()).find(id).orElseThrow();
            assertThat(c.apiKey()).isEqualTo("sk-rotate-me-0123456789");
            assertThat(c.baseUrl()).isEqualTo("http://u:pw-rotate@127.0.0.1:1/v1");
            assertThatThrownBy(() -> new JdbcConnectionStore(db, old, TestClock.create())).as("the old key opens nothing any more")
                    .isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void aConfiguredKeyNeedsTheNewOneInTheEnvironment() throws Exception {
        String oldKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
        String newKey = "HxwdHh8AAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRo=";
        String id = connection(SecretBox.fromBase64(oldKey));
        Map<String, String> env = Map.of("SLUICE_DATA_DIR", home.resolve("data").toString(), "SLUICE_PORT", "0", "SLUICE_SECRET_KEY", oldKey);

        assertThat(rotate(env)).isEqualTo(Cli.USAGE);
        assertThat(err.toString()).contains("SLUICE_NEW_SECRET_KEY");

        java.util.Map<String, String> withNew = new java.util.HashMap<>(env);
        withNew.put("SLUICE_NEW_SECRET_KEY", newKey);
        assertThat(rotate(withNew)).as(err.toString()).isZero();
        try (Database db = Database.open(home.resolve("data"))) {
            assertThat(new JdbcConnectionStore(db, SecretBox.fromBase64(newKey), TestClock.create()).find(id).orElseThrow().apiKey())
                    .isEqualTo("sk-rotate-me-0123456789");
        }
        assertThat(rotate(withNew)).as("the old key no longer opens the values: nothing changes").isEqualTo(Cli.FAILED);
    }
}
