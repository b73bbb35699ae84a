package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.plugin.PluginJars;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36, tokens after login: an upstream {@code 401} on an OAuth connection renews the token
 * once (single-flight) and sends the attempt once more with the new token; a second {@code 401} is
 * the ordinary auth failure; a token due within the skew is renewed ahead of expiry, once for many
 * requests; a rotated refresh token outlives a restart. The provider is the third-party plugin of {@link OAuthLoginIT}, which
 * contributes nothing but a login description; its token endpoint is a loopback mock.
 */
class OAuthRefreshIT {

    private static final String OLD = "old-access-0123456789";
    private static final String NEW = "new-access-0123456789";
    private static final String UNAUTHORIZED = "{\"error\":{\"message\":\"invalid access token\",\"type\":\"invalid_request_error\"}}";

    @TempDir
    Path dir;

    @TempDir
    Path scratch;

    private SluiceHarness start(MockUpstream auth) throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("acme-plugin.jar"),
                Map.of("module-info.java", OAuthLoginIT.MODULE_INFO, "acme/AcmePlugin.java", OAuthLoginIT.PLUGIN), List.of());
        return restart(auth);
    }

    /** A server on the same data folder and plugin, as after a restart. */
    private SluiceHarness restart(MockUpstream auth) {
        return new SluiceHarness(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Map.of("acme", Map.of(
                "oauthTokenUrl", auth.baseUrl() + "/token", "oauthClientId", "acme-client")));
    }

    /** Sends ten requests at once (half streamed) and returns their answers. */
    private static List<HttpResponse<String>> tenAtOnce(SluiceHarness sluice, String key) throws Exception {
        List<HttpResponse<String>> answers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                boolean stream = i % 2 == 0;
                sent.add(pool.submit(() -> {
                    go.await();
                    return sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", stream));
                }));
            }
            go.countDown();
            for (Future<HttpResponse<String>> f : sent) {
                answers.add(f.get());
            }
        } finally {
            pool.shutdownNow();
        }
        return answers;
    }

    @Test
    void aTokenFiveSecondsFromExpiryIsRenewedOnceAheadOfTenConcurrentRequestsThatAllCarryTheNewToken() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            // slow enough that all ten requests find the one renewal under way
            auth.setDefault(MockResponse.delayed(Duration.ofMillis(300), MockResponse.json(200,
                    "{\"access_token\":\"" + NEW + "\",\"refresh_token\":\"new-refresh-0123456789\",\"expires_in\":3600}")));
            upstream.setDefault(MockResponse.completion("served"));
            String id = sluice.addConnection(connection(upstream, sluice.clock.millis() + 5_000L));
            String key = sluice.addKey("{\"name\":\"it\"}");

            List<HttpResponse<String>> answers = tenAtOnce(sluice, key);

            assertThat(answers).allSatisfy(a -> assertThat(a.statusCode()).as(a.body()).isEqualTo(200));
            assertThat(auth.requestCount()).as("one refresh for all ten").isEqualTo(1);
            assertThat(auth.takeRequest(Duration.ofSeconds(5)).body()).contains("grant_type=refresh_token")
                    .contains("refresh_token=old-refresh-0123456789").contains("client_id=acme-client");
            List<String> sentTokens = upstream.requests().stream().filter(r -> r.path().endsWith("/chat/completions"))
                    .map(r -> r.header("authorization")).toList();
            assertThat(sentTokens).as("renewed ahead of expiry: the old token never went out").hasSize(10)
                    .containsOnly("Bearer " + NEW);
            assertThat(sluice.server.connections().find(id).orElseThrow().oauth().accessToken()).isEqualTo(NEW);
        }
    }

    @Test
    void theRotatedRefreshTokenIsWhatTheNextRenewalSendsAfterARestart() throws Exception {
        String id;
        try (MockUpstream auth = MockUpstream.start(); MockUpstream upstream = MockUpstream.start()) {
            upstream.setDefault(MockResponse.completion("served"));
            try (SluiceHarness sluice = start(auth)) {
                auth.enqueue(MockResponse.json(200, "{\"access_token\":\"" + NEW + "\",\"refresh_token\":\"rotated-refresh-0123456789\","
                        + "\"expires_in\":3600}"));
                id = sluice.addConnection(connection(upstream, sluice.clock.millis() + 5_000L));
                String key = sluice.addKey("{\"name\":\"it\"}");
                assertThat(sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false)).statusCode()).isEqualTo(200);
                assertThat(auth.takeRequest(Duration.ofSeconds(5)).body()).contains("refresh_token=old-refresh-0123456789");
            }
            try (SluiceHarness again = restart(auth)) {
                // the renewed token is due an hour later
                again.clock.advance(Duration.ofMinutes(60));
                auth.enqueue(MockResponse.json(200, "{\"access_token\":\"third-access-0123456789\",\"expires_in\":3600}"));
                String key = again.addKey("{\"name\":\"after-restart\"}");

                HttpResponse<String> r = again.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));

                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(auth.takeRequest(Duration.ofSeconds(5)).body()).as("the rotated token, read back from the database")
                        .contains("refresh_token=rotated-refresh-0123456789");
                assertThat(upstream.requests().getLast().header("authorization")).isEqualTo("Bearer third-access-0123456789");
                var stored = again.server.connections().find(id).orElseThrow();
                assertThat(stored.oauth().refreshToken()).as("no rotation this time: the stored one is kept")
                        .isEqualTo("rotated-refresh-0123456789");
                assertThat(auth.requestCount()).isEqualTo(2);
            }
        }
    }

    private static String connection(MockUpstream upstream, long expiresAt) {
        return "{\"provider\":\"acme\",\"authType\":\"oauth\",\"oauth\":{\"accessToken\":\"" + OLD + "\",\"refreshToken\":\"old-refresh-0123456789\","
                + "\"expiresAt\":" + expiresAt + "},\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}";
    }

    /** A connection whose token expires in an hour on the server's clock: nothing renews it ahead of expiry, only a 401 does. */
    private static String connection(MockUpstream upstream, SluiceHarness sluice) {
        return connection(upstream, sluice.clock.millis() + 3_600_000L);
    }

    /** The upstream refuses the old token and serves the new one. */
    private static MockResponse acceptingOnly(String token) {
        return MockResponse.choosing(r -> ("Bearer " + token).equals(r.header("authorization"))
                ? MockResponse.completion("served") : MockResponse.json(401, UNAUTHORIZED));
    }

    @Test
    void tenConcurrentRequestsRefusedWith401MakeExactlyOneRefreshAndAreAllServedWithTheNewToken() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            // slow enough that the ten refusals meet the one refresh under way
            auth.setDefault(MockResponse.delayed(Duration.ofMillis(300), MockResponse.json(200,
                    "{\"access_token\":\"" + NEW + "\",\"refresh_token\":\"new-refresh-0123456789\",\"expires_in\":3600}")));
            upstream.setDefault(acceptingOnly(NEW));
            String id = sluice.addConnection(connection(upstream, sluice));
            String key = sluice.addKey("{\"name\":\"it\"}");

            List<HttpResponse<String>> answers = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(10);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<HttpResponse<String>>> sent = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    boolean stream = i % 2 == 0;
                    sent.add(pool.submit(() -> {
                        go.await();
                        return sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", stream));
                    }));
                }
                go.countDown();
                for (Future<HttpResponse<String>> f : sent) {
                    answers.add(f.get());
                }
            } finally {
                pool.shutdownNow();
            }

            assertThat(answers).allSatisfy(a -> {
                assertThat(a.statusCode()).as(a.body()).isEqualTo(200);
                assertThat(a.body()).contains("served");
            });
            assertThat(auth.requestCount()).as("one refresh for all ten").isEqualTo(1);
            RecordedRequest grant = auth.takeRequest(Duration.ofSeconds(5));
            assertThat(grant.body()).contains("grant_type=refresh_token").contains("refresh_token=old-refresh-0123456789")
                    .contains("client_id=acme-client");
            List<RecordedRequest> calls = upstream.requests().stream().filter(r -> r.path().endsWith("/chat/completions")).toList();
            assertThat(calls.stream().filter(r -> ("Bearer " + NEW).equals(r.header("authorization")))).hasSize(10);
            assertThat(calls.stream().filter(r -> ("Bearer " + OLD).equals(r.header("authorization"))).count())
                    .as("each request sent the old token at most once").isBetween(1L, 10L);
            var stored = sluice.server.connections().find(id).orElseThrow();
            assertThat(stored.oauth().accessToken()).isEqualTo(NEW);
            assertThat(stored.oauth().refreshToken()).isEqualTo("new-refresh-0123456789");
            assertThat(stored.state().testStatus()).as("the 401 that a renewal answered cools nothing").isEqualTo("active");
        }
    }

    @Test
    void a401AfterTheRenewalIsTheOrdinaryAuthFailure_oneRefreshOneRetryNoLoop() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            auth.setDefault(MockResponse.json(200, "{\"access_token\":\"" + NEW + "\",\"expires_in\":3600}"));
            upstream.setDefault(MockResponse.json(401, UNAUTHORIZED));
            String id = sluice.addConnection(connection(upstream, sluice));
            String key = sluice.addKey("{\"name\":\"it\"}");

            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));

            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(auth.requestCount()).isEqualTo(1);
            List<String> tokens = upstream.requests().stream().filter(q -> q.path().endsWith("/chat/completions"))
                    .map(q -> q.header("authorization")).toList();
            assertThat(tokens).containsExactly("Bearer " + OLD, "Bearer " + NEW);
            var stored = sluice.server.connections().find(id).orElseThrow();
            assertThat(stored.oauth().refreshToken()).as("no rotation: the old refresh token is kept").isEqualTo("old-refresh-0123456789");
            assertThat(stored.state().testStatus()).as("the failure path's verdict on the second 401").isNotEqualTo("active");
        }
    }

    @Test
    void a401WhoseRefreshIsRefusedWithInvalidGrantExpiresTheConnectionWithTheReason() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            auth.setDefault(MockResponse.json(400, "{\"error\":\"invalid_grant\",\"error_description\":\"refresh token revoked\"}"));
            upstream.setDefault(MockResponse.json(401, UNAUTHORIZED));
            String id = sluice.addConnection(connection(upstream, sluice));
            String key = sluice.addKey("{\"name\":\"it\"}");

            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));

            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(upstream.requests().stream().filter(q -> q.path().endsWith("/chat/completions"))).hasSize(1);
            var shown = read(sluice.send("GET", "/api/providers/" + id, ADMIN_KEY, null).body());
            assertThat(shown.toString()).contains("expired").contains("refresh token revoked").doesNotContain("old-refresh-0123456789");
        }
    }

    @Test
    void aTransientRefreshFailureBacksOffWhileRequestsAreServedWithTheStillValidToken() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            auth.setDefault(MockResponse.json(503, "{\"error\":\"temporarily_unavailable\"}"));
            upstream.setDefault(acceptingOnly(OLD));
            // due (within the 60 s skew) but still valid for 30 s
            String id = sluice.addConnection(connection(upstream, sluice.clock.millis() + 30_000L));
            String key = sluice.addKey("{\"name\":\"it\"}");

            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }

            // how often it was tried depends on the wall clock (back-off from 1 s); the unit test counts on a test clock
            assertThat(auth.requestCount()).as("the renewal was tried").isPositive();
            var stored = sluice.server.connections().find(id).orElseThrow();
            assertThat(stored.oauth().accessToken()).isEqualTo(OLD);
            assertThat(stored.state().testStatus()).isEqualTo("active");
        }
    }
}
