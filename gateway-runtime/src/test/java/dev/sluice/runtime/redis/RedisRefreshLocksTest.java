package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.oauth.RefreshLocks;
import dev.sluice.runtime.oauth.TokenEndpoint;
import dev.sluice.runtime.oauth.TokenRefresher;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36, shared mode: one OAuth refresh per cluster. Two instances (each its own store over the
 * same database, its own refresher and its own Redis client) renew a connection's token once
 * between them; the lock is {@code SET NX PX}, freed only by its holder; Redis down: each refreshes
 * on its own.
 */
class RedisRefreshLocksTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final SecretBox BOX = SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32]));

    @RegisterExtension
    final RedisInstances redis = new RedisInstances();

    @TempDir
    Path dir;

    private TokenRefresher refresher(MockUpstream auth, JdbcConnectionStore store, RefreshLocks locks) {
        OAuthLogin login = OAuthLogin.builder("acme").flows(OAuthFlow.DEVICE).deviceUrl(auth.baseUrl() + "/device")
                .tokenUrl(auth.baseUrl() + "/token").clientId("client-1").build();
        // the production pause: a waiting instance sleeps its request thread between reads of the database
        return TokenRefresher.builder(Map.of("acme", login), TokenEndpoint.direct(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT), store,
                Clock.systemUTC(), Map.of("acme", 60_000L)).locks(locks, Thread::sleep).build();
    }

    @Test
    void twoInstancesRenewADueTokenOnceBetweenThem_theSecondReadsTheFirstsResultFromTheDatabase() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); Database dbA = Database.open(dir); Database dbB = Database.open(dir)) {
            auth.setDefault(MockResponse.delayed(Duration.ofMillis(300),
                    MockResponse.json(200, "{\"access_token\":\"new-access\",\"refresh_token\":\"new-refresh\",\"expires_in\":3600}")));
            JdbcConnectionStore storeA = new JdbcConnectionStore(dbA, BOX, Clock.systemUTC());
            Connection c = storeA.create(new NewConnection("acme", "a", ProviderClass.OAUTH, null,
                    new OAuthTokens("old-access", "old-refresh", System.currentTimeMillis() + 5_000), null, 1, true, null, null, false,
                    null, null, null));
            // instance B read its snapshot before: it never hears of A's write except by reading the database
            JdbcConnectionStore storeB = new JdbcConnectionStore(dbB, BOX, Clock.systemUTC());
            Connection seenByB = storeB.find(c.id()).orElseThrow();
            TokenRefresher a = refresher(auth, storeA, redis.instance().refreshLocks());
            TokenRefresher b = refresher(auth, storeB, redis.instance().refreshLocks());

            List<Connection> got = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(10);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Connection>> results = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    TokenRefresher r = i % 2 == 0 ? a : b;
                    Connection copy = i % 2 == 0 ? c : seenByB;
                    results.add(pool.submit(() -> {
                        go.await();
                        return r.beforeAttempt(copy);
                    }));
                }
                go.countDown();
                for (Future<Connection> f : results) {
                    got.add(f.get());
                }
            } finally {
                pool.shutdownNow();
            }

            assertThat(got).allSatisfy(x -> assertThat(x.oauth().accessToken()).isEqualTo("new-access"));
            assertThat(auth.requestCount()).as("one refresh for the cluster").isEqualTo(1);
            assertThat(redis.instance().client().<Boolean>call(j -> j.exists(RedisRefreshLocks.key(c.id())))).as("the lock was freed").isFalse();
        }
    }

    @Test
    void theLockIsTakenOnceAndFreedOnlyByItsHolder() {
        RefreshLocks a = redis.instance().refreshLocks();
        RefreshLocks b = redis.instance().refreshLocks();

        try (RefreshLocks.Claim held = a.claim("c1", 30_000)) {
            assertThat(held.outcome()).isEqualTo(RefreshLocks.Outcome.HELD);
            assertThat(b.claim("c1", 30_000).outcome()).isEqualTo(RefreshLocks.Outcome.ELSEWHERE);
            assertThat(b.claim("c2", 30_000).outcome()).as("one lock per connection").isEqualTo(RefreshLocks.Outcome.HELD);
        }
        RefreshLocks.Claim next = b.claim("c1", 30_000);
        assertThat(next.outcome()).isEqualTo(RefreshLocks.Outcome.HELD);

        // a holder whose lock expired and went to another does not free the other's
        RefreshLocks.Claim stale = a.claim("c4", 30_000);
        redis.instance().client().call(j -> j.set(RedisRefreshLocks.key("c4"), "someone-else"));
        stale.close();
        assertThat(redis.instance().client().<String>call(j -> j.get(RedisRefreshLocks.key("c4")))).isEqualTo("someone-else");
        assertThat(redis.instance().client().<Long>call(j -> j.pttl(RedisRefreshLocks.key("c1")))).as("every lock expires").isPositive();
    }

    @Test
    void withRedisDownEachInstanceRefreshesOnItsOwn() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); Database db = Database.open(dir)) {
            auth.setDefault(MockResponse.json(200, "{\"access_token\":\"new-access\",\"expires_in\":3600}"));
            JdbcConnectionStore store = new JdbcConnectionStore(db, BOX, Clock.systemUTC());
            Connection c = store.create(new NewConnection("acme", "a", ProviderClass.OAUTH, null,
                    new OAuthTokens("old-access", "old-refresh", System.currentTimeMillis() + 5_000), null, 1, true, null, null, false,
                    null, null, null));
            SharedState shared = redis.instance();
            redis.server().stop();

            assertThat(shared.refreshLocks().claim(c.id(), 30_000).outcome()).isEqualTo(RefreshLocks.Outcome.LOCAL);
            Connection renewed = refresher(auth, store, shared.refreshLocks()).beforeAttempt(c);

            assertThat(renewed.oauth().accessToken()).isEqualTo("new-access");
            assertThat(auth.requestCount()).isEqualTo(1);
        }
    }
}
