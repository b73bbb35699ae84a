package dev.sluice.runtime.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.oauth.TokenEncoding;
import dev.sluice.runtime.oauth.TokenEndpoint;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 36: a token or refresh grant leaves through the egress route it is given (the connection's,
 * or the login's {@code proxyUrl}), exactly as an upstream call of that connection does.
 */
class TokenGrantEgressTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @Test
    void aGrantForAProxiedConnectionGoesThroughItsProxy_andADirectOneDoesNot() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); TestProxy proxy = TestProxy.start();
                EgressRoutes routes = EgressRoutes.create(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT, null, TestClock.create())) {
            auth.setDefault(MockResponse.json(200, "{\"access_token\":\"a2\"}"));
            TokenEndpoint endpoint = TokenEndpoint.routed(routes::route, TIMEOUT);

            TokenEndpoint.Reply proxied = endpoint.post(EgressRoute.of(null, "http://127.0.0.1:" + proxy.port()), auth.baseUrl() + "/token",
                    TokenEncoding.FORM, Map.of("grant_type", "refresh_token", "refresh_token", "r1", "client_id", "c"));
            TokenEndpoint.Reply direct = endpoint.post(auth.baseUrl() + "/token", TokenEncoding.FORM, Map.of("grant_type", "refresh_token",
                    "refresh_token", "r1", "client_id", "c"));

            assertThat(proxied).isEqualTo(new TokenEndpoint.Issued(Map.of("access_token", "a2")));
            assertThat(direct).isEqualTo(proxied);
            assertThat(proxy.seen()).hasSize(1);
            assertThat(proxy.seen().get(0).requestLine()).isEqualTo("POST " + auth.baseUrl() + "/token HTTP/1.1");
            assertThat(auth.requestCount()).isEqualTo(2);
        }
    }
}
