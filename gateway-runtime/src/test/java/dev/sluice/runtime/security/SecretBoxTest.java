package dev.sluice.runtime.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Provider credentials sealed at rest with AES-256-GCM (SPEC SEC-2, SEC-3). */
class SecretBoxTest {

    private static final String KEY_A = Base64.getEncoder().encodeToString(bytes(1));
    private static final String KEY_B = Base64.getEncoder().encodeToString(bytes(2));
    private static final String SECRET = "sk-live-0123456789abcdef";

    @TempDir
    Path dir;

    private static byte[] bytes(int seed) {
        byte[] b = new byte[32];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void sealedSecretOpensToThePlaintext_SEC3() {
        SecretBox box = SecretBox.fromBase64(KEY_A);
        String sealed = box.seal(SECRET);

        assertThat(sealed).startsWith("v1:").doesNotContain(SECRET);
        assertThat(box.open(sealed)).isEqualTo(SECRET);
        assertThat(SecretBox.fromBase64(KEY_A).open(sealed)).as("another box with the same key").isEqualTo(SECRET);
    }

    @Test
    void unicodeAndEmptySecretsRoundTrip_SEC3() {
        SecretBox box = SecretBox.fromBase64(KEY_A);
        assertThat(box.open(box.seal("ключ-密钥-🔑"))).isEqualTo("ключ-密钥-🔑");
        assertThat(box.open(box.seal(""))).isEmpty();
    }

    @Test
    void nullStaysNull_SEC3() {
        SecretBox box = SecretBox.fromBase64(KEY_A);
        assertThat(box.seal(null)).isNull();
        assertThat(box.open(null)).isNull();
    }

    @Test
    void sealingTheSamePlaintextTwiceGivesDifferentCiphertexts_SEC3() {
        SecretBox box = SecretBox.fromBase64(KEY_A);
        String first = box.seal(SECRET);
        String second = box.seal(SECRET);

        assertThat(first).isNotEqualTo(second);
        assertThat(box.open(first)).isEqualTo(box.open(second)).isEqualTo(SECRET);
    }

    @Test
    void wrongKeyFailsWithAMessageThatContainsNoSecret_SEC2() {
        String sealed = SecretBox.fromBase64(KEY_A).seal(SECRET);

        Throwable t = catchThrowable(() -> SecretBox.fromBase64(KEY_B).open(sealed));

        assertThat(t).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot decrypt a stored credential: wrong SLUICE_SECRET_KEY or damaged data")
                .hasNoCause();
        assertThat(t.getMessage()).doesNotContain(SECRET).doesNotContain(sealed).doesNotContain(KEY_A).doesNotContain(KEY_B);
    }

    @Test
    void tamperedCiphertextIsRejected_SEC3() {
        SecretBox box = SecretBox.fromBase64(KEY_A);
        byte[] raw = Base64.getDecoder().decode(box.seal(SECRET).substring(3));
        raw[raw.length - 1] ^= 1;

        assertThatThrownBy(() -> box.open("v1:" + Base64.getEncoder().encodeToString(raw)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("damaged data");
    }

    @Test
    void malformedSealedValuesAreRejectedWithoutEchoingThem_SEC2() {
        SecretBox box = SecretBox.fromBase64(KEY_A);
        assertThatThrownBy(() -> box.open(SECRET)).isInstanceOf(IllegalStateException.class)
                .hasMessage("stored credential has an unknown format");
        assertThatThrownBy(() -> box.open("v1:%%%not-base64")).isInstanceOf(IllegalStateException.class)
                .hasMessageNotContaining("not-base64");
        assertThatThrownBy(() -> box.open("v1:AAAA")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void keyMustBeBase64OfThirtyTwoBytes_SEC3() {
        assertThatThrownBy(() -> SecretBox.fromBase64("not base64!")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SLUICE_SECRET_KEY is not valid base64 of 32 bytes");
        assertThatThrownBy(() -> SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[16])))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SecretBox.fromBase64("  " + KEY_A + "\n").open(SecretBox.fromBase64(KEY_A).seal("x"))).isEqualTo("x");
    }

    @Test
    void keyFileIsCreatedOwnerOnlyAndReusedOnReopen_SEC3() throws IOException {
        Path dataDir = dir.resolve("data/nested");

        SecretBox first = SecretBox.open(null, dataDir);
        Path keyFile = dataDir.resolve("secret.key");

        assertThat(keyFile).isRegularFile();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile))).isEqualTo("rw-------");
        assertThat(Base64.getDecoder().decode(Files.readString(keyFile, StandardCharsets.US_ASCII))).hasSize(32);
        String sealed = first.seal(SECRET);
        String before = Files.readString(keyFile);

        SecretBox second = SecretBox.open(null, dataDir);

        assertThat(second.open(sealed)).isEqualTo(SECRET);
        assertThat(Files.readString(keyFile)).isEqualTo(before);
    }

    @Test
    void configuredKeyWinsAndNoKeyFileIsWritten_SEC3() {
        SecretBox box = SecretBox.open(KEY_A, dir);

        assertThat(dir.resolve("secret.key")).doesNotExist();
        assertThat(SecretBox.fromBase64(KEY_A).open(box.seal(SECRET))).isEqualTo(SECRET);
    }

    @Test
    void existingKeyFileIsUsed_SEC3() throws IOException {
        Files.writeString(dir.resolve("secret.key"), KEY_B + "\n");

        assertThat(SecretBox.fromBase64(KEY_B).open(SecretBox.open(null, dir).seal(SECRET))).isEqualTo(SECRET);
    }
}
