package dev.sluice.runtime.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.SettingsStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The admin key: configured, else generated once, printed once, stored as a hash (SPEC SH-4, SH-5, SEC-1). */
class AdminKeysTest {

    private static final class MemorySettings implements SettingsStore {
        final Map<String, String> values = new HashMap<>();

        @Override
        public Optional<String> get(String key) {
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public void put(String key, String json) {
            values.put(key, json);
        }
    }

    private final MemorySettings settings = new MemorySettings();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final PrintStream console = new PrintStream(out, true, StandardCharsets.UTF_8);

    private String printed() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void configuredKeyWinsAndNothingIsPrintedOrStored_SH5() {
        String hash = AdminKeys.resolveHash("my-admin-key", settings, console);

        assertThat(hash).isEqualTo(KeyHasher.hash("my-admin-key"));
        assertThat(printed()).isEmpty();
        assertThat(settings.values).isEmpty();
    }

    @Test
    void configuredKeyWinsOverAStoredHash_SH5() {
        AdminKeys.resolveHash(null, settings, console);
        out.reset();

        assertThat(AdminKeys.resolveHash("configured", settings, console)).isEqualTo(KeyHasher.hash("configured"));
        assertThat(printed()).isEmpty();
    }

    @Test
    void withoutAConfiguredKeyOneIsGeneratedPrintedOnceAndStoredAsAHash_SH4() {
        String hash = AdminKeys.resolveHash(null, settings, console);

        String output = printed();
        assertThat(output.lines().toList()).hasSize(1);
        String line = output.strip();
        assertThat(line).startsWith("Generated admin key (shown once; store it now, only its hash is kept): sk-sluice-admin-");
        String key = line.substring(line.lastIndexOf(' ') + 1);
        assertThat(key).matches("sk-sluice-admin-[A-Za-z0-9_-]{43}");
        assertThat(hash).isEqualTo(KeyHasher.hash(key));
        assertThat(settings.values).containsExactlyEntriesOf(Map.of(AdminKeys.SETTING, "\"" + hash + "\""));
        assertThat(AdminKeys.SETTING).isEqualTo("adminKeyHash");
        assertThat(settings.values.values()).noneMatch(v -> v.contains(key));
    }

    @Test
    void secondStartReusesTheStoredHashWithoutPrinting_SH4() {
        String first = AdminKeys.resolveHash(null, settings, console);
        out.reset();

        String second = AdminKeys.resolveHash(null, settings, console);

        assertThat(second).isEqualTo(first);
        assertThat(printed()).isEmpty();
    }
}
