package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import org.junit.jupiter.api.Test;

/** Upstream texts lose the connection's secrets before they are stored or shown (SEC-2). */
class SecretsTest {

    private static Connection conn(String apiKey, String proxyUrl) {
        return new Connection("c1", 1, "glm", "k", ProviderClass.APIKEY, apiKey, null, null, 1, true, null, null, false, false, null,
                null, proxyUrl, ConnectionState.ACTIVE, 0, 0);
    }

    @Test
    void theApiKeyAndTheProxyPasswordAreMasked_SEC2() {
        Connection c = conn("sk-live-0123456789", "http://user:pr0xy-secret@proxy.example:3128");
        assertThat(Secrets.scrub("Incorrect API key sk-live-0123456789 via user:pr0xy-secret@proxy", c))
                .isEqualTo("Incorrect API key **** via user:****@proxy");
    }

    @Test
    void proxyUrlsWithoutAPasswordHaveNone_SEC2() {
        assertThat(Secrets.proxyPassword("http://proxy.example:3128")).isNull();
        assertThat(Secrets.proxyPassword("http://user@proxy.example:3128")).isNull();
        assertThat(Secrets.proxyPassword("http://u:p:w@my_proxy:3128")).isEqualTo("p:w");
        assertThat(Secrets.proxyPassword(null)).isNull();
    }
}
