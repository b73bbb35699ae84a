package dev.sluice.runtime.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 36: the host's OAuth renewal ahead of expiry, single-flight, rotation-safe, invalid_grant terminal. */
class TokenRefresherTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private MockUpstream auth;
    private Database db;
    private JdbcConnectionStore store;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));

    @BeforeEach
    void setUp() {
        auth = MockUpstream.start();
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
    }

    @AfterEach
    void tearDown() {
        auth.close();
        db.close();
    }

    private TokenRefresher refresher() {
        OAuthLogin login = OAuthLogin.builder("acme").flows(OAuthFlow.DEVICE).deviceUrl(auth.baseUrl() + "/device")
                .tokenUrl(auth.baseUrl() + "/token").clientId("client-123").build();
        return new TokenRefresher(Map.of("acme", login), new TokenEndpoint(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT), store,
                clock, Map.of("acme", 10_000L));
    }

    private Connection connection(long expiresInMs) {
        return store.create(new NewConnection("acme", "a", ProviderClass.OAUTH, null,
                new OAuthTokens("old-access", "old-refresh", clock.millis() + expiresInMs), null, 1, true, null, null, false, null, null, null));
    }

    @Test
    void aTokenFiveSecondsFromExpiryIsRenewedOnceForTenConcurrentAttempts() throws Exception {
        Connection c = connection(5_000);
        TokenRefresher refresher = refresher();
        auth.setDefault(MockResponse.json(200, "{\"access_token\":\"new-access\",\"refresh_token\":\"new-refresh\",\"expires_in\":3600}"));
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Connection>> results = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return refresher.fresh(c);
                }));
            }
            go.countDown();
            for (Future<Connection> f : results) {
                assertThat(f.get().oauth().accessToken()).isEqualTo("new-access");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(auth.requestCount()).isEqualTo(1);
        assertThat(auth.takeRequest(TIMEOUT).body()).contains("grant_type=refresh_token").contains("refresh_token=old-refresh")
                .contains("client_id=client-123");
    }

    @Test
    void aTokenNotYetDueCostsNoCall() {
        Connection c = connection(60_000);
        assertThat(refresher().fresh(c)).isSameAs(c);
        assertThat(auth.requestCount()).isZero();
    }

    @Test
    void theRotatedRefreshTokenIsStoredAndUsedAfterARestart() throws Exception {
        Connection c = connection(1_000);
        auth.enqueue(MockResponse.json(200, "{\"access_token\":\"a2\",\"refresh_token\":\"r2\",\"expires_in\":60}"));
        refresher().fresh(c);
        assertThat(store.find(c.id()).orElseThrow().oauth().refreshToken()).isEqualTo("r2");
        auth.takeRequest(TIMEOUT);

        clock.advance(Duration.ofSeconds(55));
        auth.enqueue(MockResponse.json(200, "{\"access_token\":\"a3\",\"expires_in\":60}"));
        // a new refresher, as after a restart, reads the stored tokens
        Connection renewed = refresher().fresh(store.find(c.id()).orElseThrow());

        assertThat(auth.takeRequest(TIMEOUT).body()).contains("refresh_token=r2");
        assertThat(renewed.oauth().accessToken()).isEqualTo("a3");
        assertThat(renewed.oauth().refreshToken()).as("no rotation: the stored one is kept").isEqualTo("r2");
    }

    @Test
    void invalidGrantEndsTheConnectionExpiredWithTheReason() {
        Connection c = connection(1_000);
        auth.enqueue(MockResponse.json(400, "{\"error\":\"invalid_grant\",\"error_description\":\"refresh token revoked\"}"));

        Connection after = refresher().fresh(c);

        assertThat(after.state().testStatus()).isEqualTo("expired");
        assertThat(after.state().errorCode()).isEqualTo("invalid_grant");
        assertThat(after.state().lastError()).contains("refresh token revoked").doesNotContain("old-refresh");
        assertThat(store.find(c.id()).orElseThrow().state().testStatus()).isEqualTo("expired");
    }

    @Test
    void aTransientFailureKeepsTheTokenAndBacksOffOnTheClock() {
        Connection c = connection(5_000);
        TokenRefresher refresher = refresher();
        auth.enqueue(MockResponse.json(503, "{\"error\":\"temporarily_unavailable\"}"));

        assertThat(refresher.fresh(c).oauth().accessToken()).isEqualTo("old-access");
        assertThat(refresher.fresh(c).oauth().accessToken()).isEqualTo("old-access");
        assertThat(auth.requestCount()).as("the second attempt waits out the back-off").isEqualTo(1);
        assertThat(store.find(c.id()).orElseThrow().state().testStatus()).isEqualTo("active");

        clock.advance(Duration.ofMillis(TokenRefresher.BACKOFF_BASE_MS));
        auth.enqueue(MockResponse.json(200, "{\"access_token\":\"new-access\",\"expires_in\":3600}"));
        assertThat(refresher.fresh(c).oauth().accessToken()).isEqualTo("new-access");
        assertThat(auth.requestCount()).isEqualTo(2);
    }
}
