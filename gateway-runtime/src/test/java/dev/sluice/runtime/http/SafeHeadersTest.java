package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Header values built from names are always writable (issue 29). */
class SafeHeadersTest {

    @Test
    void valuesHelidonRefusesArePercentEncoded_issue29() {
        assertThat(SafeHeaders.safe("gpt-4o")).isEqualTo("gpt-4o");
        assertThat(SafeHeaders.safe("a b")).isEqualTo("a b");
        assertThat(SafeHeaders.safe(" x")).isEqualTo("+x");
        assertThat(SafeHeaders.safe("x ")).isEqualTo("x+");
        assertThat(SafeHeaders.safe("a\tb")).isEqualTo("a%09b");
        assertThat(SafeHeaders.safe("é")).isEqualTo("%C3%A9");
        assertThat(SafeHeaders.safe("")).isEmpty();
    }
}
