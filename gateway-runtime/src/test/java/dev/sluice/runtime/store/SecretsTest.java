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
    void echoedFormsOfTheKeyAreMaskedToo_SEC2() {
        Connection c = conn("sk-Live/0123+456=789", null);
        assertThat(Secrets.scrub("key sk-live/0123+456=789 revoked", c)).isEqualTo("key **** revoked");
        assertThat(Secrets.scrub("KEY SK-LIVE/0123+456=789", c)).isEqualTo("KEY ****");
        assertThat(Secrets.scrub("url ?key=sk-Live%2F0123%2B456%3D789&x=1", c)).isEqualTo("url ?key=****&x=1");
        assertThat(Secrets.scrub("lower hex sk-Live%2f0123%2b456%3d789", c)).isEqualTo("lower hex ****");
        String basic = java.util.Base64.getEncoder().encodeToString("sk-Live/0123+456=789:".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(Secrets.scrub("Authorization: Basic " + basic, c)).isEqualTo("Authorization: Basic ****");
    }

    @Test
    void theProxyCredentialsAreMaskedAsTheBasicHeaderAProxyEchoes_SEC2() {
        Connection c = conn("sk-live-0123456789", "http://us%40er:p%40ss-w0rd@proxy.example:3128");
        String basic = java.util.Base64.getEncoder().encodeToString("us@er:p@ss-w0rd".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(Secrets.scrub("echo Proxy-Authorization: Basic " + basic + " end", c)).isEqualTo("echo Proxy-Authorization: Basic **** end");
        assertThat(Secrets.scrub("password p@ss-w0rd and P%40SS-W0RD", c)).isEqualTo("password **** and ****");
    }

    @Test
    void oauthTokensAndBaseUrlPasswordsAreMaskedInEveryForm_SEC2() {
        Connection c = new Connection("c1", 1, "acme", "k", ProviderClass.OAUTH, null,
                new OAuthTokens("ya29.Access/Token+1", "1//Refresh-Token", null), "https://user:base-secret@host.example/v1", 1, true,
                null, null, false, false, null, null, null, ConnectionState.ACTIVE, 0, 0);
        assertThat(Secrets.scrub("token=ya29.Access%2FToken%2B1 refresh 1%2F%2Frefresh-token base BASE-SECRET", c))
                .isEqualTo("token=**** refresh **** base ****");
    }

    @Test
    void proxyUrlsWithoutAPasswordHaveNone_SEC2() {
        assertThat(Secrets.proxyPassword("http://proxy.example:3128")).isNull();
        assertThat(Secrets.proxyPassword("http://user@proxy.example:3128")).isNull();
        assertThat(Secrets.proxyPassword("http://u:p:w@my_proxy:3128")).isEqualTo("p:w");
        assertThat(Secrets.proxyPassword(null)).isNull();
    }
}
