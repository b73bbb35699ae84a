package dev.sluice.runtime.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import dev.sluice.runtime.upstream.EgressRoute;
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

    private OAuthLogin login() {
        return OAuthLogin.builder("acme").flows(OAuthFlow.DEVICE).deviceUrl(auth.baseUrl() + "/device")
                .tokenUrl(auth.baseUrl() + "/token").clientId("client-123").build();
    }

    private TokenRefresher refresher() {
        return refresher(store);
    }

    private TokenRefresher refresher(ConnectionStore on) {
        return TokenRefresher.builder(Map.of("acme", login()), TokenEndpoint.direct(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT), on,
                clock, Map.of("acme", 10_000L)).build();
    }

    private static final String RENEWED = "{\"access_token\":\"new-access\",\"refresh_token\":\"new-refresh\",\"expires_in\":3600}";

    /** Runs the call on ten threads at once and returns what each got. */
    private static List<Connection> tenAtOnce(java.util.concurrent.Callable<Connection> call) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Connection>> results = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return call.call();
                }));
            }
            go.countDown();
            List<Connection> out = new ArrayList<>();
            for (Future<Connection> f : results) {
                out.add(f.get());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
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

    // ------------------------------------------------------------------ after a 401

    @Test
    void tenAttemptsRefusedWith401ShareOneRefreshAndAllRetryWithTheNewToken() throws Exception {
        Connection c = connection(3_600_000);
        TokenRefresher refresher = refresher();
        auth.setDefault(MockResponse.delayed(Duration.ofMillis(100), MockResponse.json(200, RENEWED)));

        List<Connection> retries = tenAtOnce(() -> refresher.afterUnauthorized(c));

        assertThat(retries).allSatisfy(r -> assertThat(r.oauth().accessToken()).isEqualTo("new-access"));
        assertThat(auth.requestCount()).isEqualTo(1);
        assertThat(store.find(c.id()).orElseThrow().oauth()).isEqualTo(new OAuthTokens("new-access", "new-refresh",
                clock.millis() + 3_600_000L));
    }

    @Test
    void a401OnATokenAlreadyRenewedRetriesWithTheRenewedOneWithoutAnotherRefresh() {
        Connection stale = connection(3_600_000);
        TokenRefresher refresher = refresher();
        auth.enqueue(MockResponse.json(200, RENEWED));
        assertThat(refresher.afterUnauthorized(stale).oauth().accessToken()).isEqualTo("new-access");

        Connection again = refresher.afterUnauthorized(stale);

        assertThat(again.oauth().accessToken()).isEqualTo("new-access");
        assertThat(auth.requestCount()).isEqualTo(1);
        assertThat(refresher.beforeAttempt(stale).oauth().accessToken()).as("a stale copy is sent with the renewed token").isEqualTo("new-access");
    }

    @Test
    void a401WhoseRefreshFailsGivesNoRetry_andTheBackOffSparesTheTokenEndpoint() {
        Connection c = connection(3_600_000);
        TokenRefresher refresher = refresher();
        auth.enqueue(MockResponse.json(503, "{\"error\":\"temporarily_unavailable\"}"));

        assertThat(refresher.afterUnauthorized(c)).isNull();
        assertThat(refresher.afterUnauthorized(c)).isNull();
        assertThat(auth.requestCount()).isEqualTo(1);
        assertThat(store.find(c.id()).orElseThrow().state().testStatus()).as("the 401 itself is the failure path's").isEqualTo("active");
    }

    @Test
    void a401WithInvalidGrantEndsTheConnectionExpiredAndGivesNoRetry() {
        Connection c = connection(3_600_000);
        auth.enqueue(MockResponse.json(400, "{\"error\":\"invalid_grant\"}"));

        assertThat(refresher().afterUnauthorized(c)).isNull();
        assertThat(store.find(c.id()).orElseThrow().state().testStatus()).isEqualTo("expired");
    }

    @Test
    void noRetryWithoutRefreshTokenOrLoginOrForApiKeyConnections() {
        Connection noRefresh = store.create(new NewConnection("acme", "b", ProviderClass.OAUTH, null,
                new OAuthTokens("at", null, null), null, 1, true, null, null, false, null, null, null));
        Connection otherProvider = store.create(new NewConnection("other", "c", ProviderClass.OAUTH, null,
                new OAuthTokens("at", "rt", null), null, 1, true, null, null, false, null, null, null));
        Connection apiKey = store.create(new NewConnection("acme", "d", ProviderClass.APIKEY, "sk-key",
                null, null, 1, true, null, null, false, null, null, null));
        TokenRefresher refresher = refresher();

        assertThat(refresher.afterUnauthorized(noRefresh)).isNull();
        assertThat(refresher.afterUnauthorized(otherProvider)).isNull();
        assertThat(refresher.afterUnauthorized(apiKey)).isNull();
        assertThat(refresher.beforeAttempt(apiKey)).isSameAs(apiKey);
        assertThat(auth.requestCount()).isZero();
    }

    // ------------------------------------------------------------------ ahead of expiry, more cases

    @Test
    void transientFailuresBackOffDoublingWhileTheOldTokenKeepsServing() {
        Connection c = connection(5_000);
        TokenRefresher refresher = refresher();
        auth.setDefault(MockResponse.json(500, "{}"));

        refresher.beforeAttempt(c);
        clock.advance(Duration.ofMillis(TokenRefresher.BACKOFF_BASE_MS));
        assertThat(refresher.beforeAttempt(c).oauth().accessToken()).isEqualTo("old-access");
        assertThat(auth.requestCount()).isEqualTo(2);
        clock.advance(Duration.ofMillis(TokenRefresher.BACKOFF_BASE_MS));
        refresher.beforeAttempt(c);
        assertThat(auth.requestCount()).as("the second failure doubled the wait").isEqualTo(2);
        clock.advance(Duration.ofMillis(TokenRefresher.BACKOFF_BASE_MS));
        refresher.beforeAttempt(c);
        assertThat(auth.requestCount()).isEqualTo(3);
        assertThat(store.find(c.id()).orElseThrow().state().testStatus()).isEqualTo("active");
    }

    @Test
    void renewedTokensTheStoreCouldNotKeepAreUsedFromMemory() {
        Connection c = connection(1_000);
        ConnectionStore failing = new ForwardingStore(store) {
            @Override
            public java.util.Optional<Connection> updateOAuth(String id, OAuthTokens tokens) {
                throw new IllegalStateException("disk full");
            }
        };
        TokenRefresher refresher = refresher(failing);
        auth.enqueue(MockResponse.json(200, RENEWED));

        assertThat(refresher.beforeAttempt(c).oauth().accessToken()).isEqualTo("new-access");
        assertThat(refresher.beforeAttempt(store.find(c.id()).orElseThrow()).oauth().refreshToken())
                .as("the stored copy still has the replaced token: the renewal is used, not refreshed again").isEqualTo("new-refresh");
        assertThat(auth.requestCount()).isEqualTo(1);
    }

    @Test
    void theRefreshLeavesThroughTheConnectionsProxy() {
        Connection c = store.create(new NewConnection("acme", "p", ProviderClass.OAUTH, null,
                new OAuthTokens("old-access", "old-refresh", clock.millis()), null, 1, true, null, null, false, null, null,
                "http://proxy.invalid:3128"));
        List<EgressRoute> ways = new java.util.concurrent.CopyOnWriteArrayList<>();
        HelidonUpstreamHttp direct = new HelidonUpstreamHttp(TIMEOUT, TIMEOUT);
        TokenEndpoint endpoint = TokenEndpoint.routed(way -> {
            ways.add(way);
            return direct; // the test's stand-in for the proxy route
        }, TIMEOUT);
        auth.enqueue(MockResponse.json(200, RENEWED));

        TokenRefresher.builder(Map.of("acme", login()), endpoint, store, clock, Map.of()).build().beforeAttempt(c);

        assertThat(ways).containsExactly(EgressRoute.of(null, "http://proxy.invalid:3128"));
    }

    // ------------------------------------------------------------------ cluster lock

    @Test
    void whileAnotherInstanceHoldsTheLockItsStoredResultIsUsedWithoutACall() {
        Connection c = connection(1_000);
        List<Long> pauses = new ArrayList<>();
        RefreshLocks elsewhere = (id, ttl) -> RefreshLocks.Claim.ELSEWHERE;
        TokenRefresher refresher = TokenRefresher.builder(Map.of("acme", login()), TokenEndpoint.direct(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT),
                TIMEOUT), store, clock, Map.of("acme", 10_000L)).locks(elsewhere, ms -> {
                    pauses.add(ms);
                    // the other instance stores its result meanwhile
                    store.updateOAuth(c.id(), new OAuthTokens("theirs", "their-refresh", clock.millis() + 3_600_000L));
                }).build();

        Connection got = refresher.beforeAttempt(c);

        assertThat(got.oauth().accessToken()).isEqualTo("theirs");
        assertThat(pauses).containsExactly(TokenRefresher.LOCK_POLL_MS);
        assertThat(auth.requestCount()).isZero();
    }

    @Test
    void anotherInstancesRefreshThatNeverFinishesIsWaitedForBrieflyThenTheOldTokenGoesOut() {
        Connection c = connection(1_000);
        List<Long> pauses = new ArrayList<>();
        TokenRefresher refresher = TokenRefresher.builder(Map.of("acme", login()), TokenEndpoint.direct(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT),
                TIMEOUT), store, clock, Map.of("acme", 10_000L)).locks((id, ttl) -> RefreshLocks.Claim.ELSEWHERE, pauses::add).build();

        assertThat(refresher.beforeAttempt(c).oauth().accessToken()).isEqualTo("old-access");
        assertThat(pauses.stream().mapToLong(Long::longValue).sum()).isEqualTo(TokenRefresher.LOCK_WAIT_MS);
        assertThat(auth.requestCount()).isZero();
    }

    @Test
    void theHolderOfTheLockReadsTheStoreFirstAndFreesTheLockAfterItsRefresh() {
        Connection c = connection(1_000);
        List<String> events = new ArrayList<>();
        RefreshLocks locks = (id, ttl) -> {
            events.add("claim " + id + " " + ttl);
            return new RefreshLocks.Claim() {
                @Override
                public RefreshLocks.Outcome outcome() {
                    return RefreshLocks.Outcome.HELD;
                }

                @Override
                public void close() {
                    events.add("release, stored " + store.find(id).orElseThrow().oauth().accessToken());
                }
            };
        };
        auth.enqueue(MockResponse.json(200, RENEWED));

        TokenRefresher.builder(Map.of("acme", login()), TokenEndpoint.direct(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT), store, clock,
                Map.of("acme", 10_000L)).locks(locks, ms -> { }).build().beforeAttempt(c);

        assertThat(events).containsExactly("claim " + c.id() + " " + TokenRefresher.LOCK_TTL_MS, "release, stored new-access");
    }

    /** A store that forwards every call. */
    private static class ForwardingStore implements ConnectionStore {
        private final ConnectionStore to;

        ForwardingStore(ConnectionStore to) {
            this.to = to;
        }

        @Override
        public List<Connection> list() {
            return to.list();
        }

        @Override
        public java.util.Optional<Connection> find(String id) {
            return to.find(id);
        }

        @Override
        public Connection create(NewConnection fields) {
            return to.create(fields);
        }

        @Override
        public java.util.Optional<Connection> update(String id, NewConnection fields, boolean rateLimitProtection) {
            return to.update(id, fields, rateLimitProtection);
        }

        @Override
        public java.util.Optional<Connection> updateState(String id, ConnectionState state) {
            return to.updateState(id, state);
        }

        @Override
        public java.util.Optional<Connection> updateOAuth(String id, OAuthTokens tokens) {
            return to.updateOAuth(id, tokens);
        }

        @Override
        public java.util.Optional<Connection> updateRateLimitProtection(String id, boolean enabled) {
            return to.updateRateLimitProtection(id, enabled);
        }

        @Override
        public boolean delete(String id) {
            return to.delete(id);
        }
    }
}
