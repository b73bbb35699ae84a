package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LowerCaseSchemeTest {

    @Test
    void anUpperCaseSchemeIsLoweredAndTheRestKept() {
        assertThat(ProviderCatalog.lowerCaseScheme("HTTPS://API.Example.test/V1")).isEqualTo("https://API.Example.test/V1");
        assertThat(ProviderCatalog.lowerCaseScheme("Http://h:1/x")).isEqualTo("http://h:1/x");
    }

    @Test
    void aLowerCaseSchemeIsTheSameStringNoCopy() {
        String url = "http://127.0.0.1:8080/v1";
        assertThat(ProviderCatalog.lowerCaseScheme(url)).isSameAs(url);
        String none = "no-scheme-here";
        assertThat(ProviderCatalog.lowerCaseScheme(none)).isSameAs(none);
    }
}
