package dev.sluice.runtime.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Gateway and admin keys: SHA-256 hashes, constant-time comparison, generation (SPEC SEC-1). */
class KeyHasherTest {

    @Test
    void hashIsTheLowerCaseHexSha256OfTheKey_SEC1() throws Exception {
        // FIPS 180-2 test vector
        assertThat(KeyHasher.hash("abc")).isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        String key = "sk-sluice-Ünïcødé";
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        assertThat(KeyHasher.hash(key)).isEqualTo(expected).hasSize(64).matches("[0-9a-f]{64}");
    }

    @Test
    void hashIsDeterministicAndDistinguishesKeys_SEC1() {
        assertThat(KeyHasher.hash("k1")).isEqualTo(KeyHasher.hash("k1")).isNotEqualTo(KeyHasher.hash("k2"));
    }

    @Test
    void matchesIsTrueOnlyForEqualHashes_SEC1() {
        String h = KeyHasher.hash("secret");
        assertThat(KeyHasher.matches(h, KeyHasher.hash("secret"))).isTrue();
        assertThat(KeyHasher.matches(h, KeyHasher.hash("Secret"))).isFalse();
        assertThat(KeyHasher.matches(h, h.substring(0, 63))).isFalse();
        assertThat(KeyHasher.matches(h, h + "0")).isFalse();
        assertThat(KeyHasher.matches("", "")).isTrue();
    }

    @Test
    void matchesIsFalseForNull_SEC1() {
        assertThat(KeyHasher.matches(null, KeyHasher.hash("x"))).isFalse();
        assertThat(KeyHasher.matches(KeyHasher.hash("x"), null)).isFalse();
        assertThat(KeyHasher.matches(null, null)).isFalse();
    }

    @Test
    void generatedKeyIsThePrefixPlus43Base64UrlCharacters_SEC1() {
        String client = KeyHasher.generate(KeyHasher.CLIENT_KEY_PREFIX);
        String admin = KeyHasher.generate(KeyHasher.ADMIN_KEY_PREFIX);

        assertThat(KeyHasher.CLIENT_KEY_PREFIX).isEqualTo("sk-sluice-");
        assertThat(KeyHasher.ADMIN_KEY_PREFIX).isEqualTo("sk-sluice-admin-");
        assertThat(client).startsWith("sk-sluice-").hasSize("sk-sluice-".length() + 43);
        assertThat(client.substring("sk-sluice-".length())).matches("[A-Za-z0-9_-]{43}");
        assertThat(admin).startsWith("sk-sluice-admin-").hasSize("sk-sluice-admin-".length() + 43);
        assertThat(admin.substring("sk-sluice-admin-".length())).matches("[A-Za-z0-9_-]{43}");
    }

    @Test
    void generatedKeysAreDistinct_SEC1() {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            keys.add(KeyHasher.generate("p-"));
        }
        assertThat(keys).hasSize(200);
    }

    @Test
    void previewIsTheOneMaskedFormFirstThreeEllipsisLastFour_SEC2_issue32() {
        String client = KeyHasher.generate(KeyHasher.CLIENT_KEY_PREFIX);
        assertThat(KeyHasher.preview(client)).isEqualTo("sk-…" + client.substring(client.length() - 4));
        assertThat(KeyHasher.preview("sk-sluice-admin-WxYzabcd")).isEqualTo("sk-…abcd");
        assertThat(KeyHasher.preview("other-secret-key")).isEqualTo("oth…-key");
        assertThat(KeyHasher.preview("sk-short")).isEqualTo("****");
        assertThat(KeyHasher.preview("sk-sluice-AbCdEfGh")).isEqualTo(SecretMask.of("sk-sluice-AbCdEfGh"));
    }
}
