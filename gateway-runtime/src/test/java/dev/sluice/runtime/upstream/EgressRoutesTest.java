package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.TestClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-connection outbound routing and egress IPs (SPEC §16.3, EB-1, EB-2): the wrapper every
 * executor sends through picks the calling thread's route, and knows each route's egress IP
 * without blocking a request on the network.
 */
class EgressRoutesTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final EgressRoute BOUND_2 = EgressRoute.of("127.0.0.2", null);
    private static final EgressRoute BOUND_3 = EgressRoute.of("127.0.0.3", null);

    private MockUpstream upstream;
    private MockUpstream probe;
    private final TestClock clock = TestClock.create();
    private final ManualExecutor probes = new ManualExecutor();
    private final AtomicInteger built = new AtomicInteger();
    private EgressRoutes routes;

    @BeforeEach
    void start() {
        upstream = MockUpstream.start();
        probe = MockUpstream.start();
        probe.setDefault(MockResponse.json(200, " 203.0.113.7\n").header("Content-Type", "text/plain"));
        routes = routes(URI.create(probe.baseUrl() + "/ip"));
    }

    @AfterEach
    void stop() {
        routes.close();
        upstream.close();
        probe.close();
    }

    private EgressRoutes routes(URI probeUrl) {
        Function<EgressRoute, JdkUpstreamHttp> factory = r -> {
            built.incrementAndGet();
            return new JdkUpstreamHttp(r, TIMEOUT, null, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS);
        };
        return new EgressRoutes(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), factory, probeUrl, clock, probes);
    }

    /** Sends one request through the wrapper and returns the address the upstream saw it from. */
    private String sendAndSeeFrom() {
        return sendAndSeeFrom(routes);
    }

    /** Sends one request through a client and returns the address the upstream saw it from. */
    private String sendAndSeeFrom(dev.sluice.api.upstream.UpstreamHttp client) {
        try (UpstreamResponse r = client.send(new UpstreamRequest("POST", URI.create(upstream.baseUrl() + "/v1/chat/completions"),
                Map.of(), "{\"model\":\"m\"}".getBytes(UTF_8), TIMEOUT))) {
            r.bodyText(1 << 20);
            return upstream.takeRequest(TIMEOUT).remoteAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ routing (EB-1)

    @Test
    void withoutARouteEveryRequestGoesThroughTheDefaultClient_EB1() {
        assertThat(routes.route(EgressRoute.DIRECT)).isNotSameAs(routes);
        assertThat(sendAndSeeFrom()).isEqualTo("127.0.0.1");
        assertThat(sendAndSeeFrom(routes.route(EgressRoute.DIRECT))).isEqualTo("127.0.0.1");
        assertThat(built).hasValue(0);
    }

    @Test
    void aRoutesClientSendsThroughTheRouteAndTheDefaultClientStaysDirect_EB1() {
        assertThat(sendAndSeeFrom(routes.route(BOUND_2))).isEqualTo("127.0.0.2");
        assertThat(sendAndSeeFrom(routes.route(BOUND_3))).isEqualTo("127.0.0.3");
        assertThat(sendAndSeeFrom()).isEqualTo("127.0.0.1");
    }

    @Test
    void theDirectRouteAndARouteOfBlankValuesUseTheDefaultClient_EB1() {
        assertThat(EgressRoute.of(" ", "")).isSameAs(EgressRoute.DIRECT);
        assertThat(sendAndSeeFrom(routes.route(EgressRoute.of(null, " ")))).isEqualTo("127.0.0.1");
        assertThat(built).hasValue(0);
        assertThat(routes.clientCount()).isZero();
    }

    @Test
    void oneClientIsBuiltPerRouteAndReused_EB1() {
        sendAndSeeFrom(routes.route(BOUND_2));
        sendAndSeeFrom(routes.route(EgressRoute.of("127.0.0.2", null)));
        assertThat(built).hasValue(1);

        sendAndSeeFrom(routes.route(BOUND_3));
        assertThat(built).hasValue(2);
        assertThat(routes.clientCount()).isEqualTo(2);
        assertThat(upstream.requestCount()).isEqualTo(3);
    }

    @Test
    void clientsOfRoutesNoConnectionUsesAreLetGoAndRebuiltOnDemand_EB1() {
        sendAndSeeFrom(routes.route(BOUND_2));
        sendAndSeeFrom(routes.route(BOUND_3));
        assertThat(routes.clientCount()).isEqualTo(2);

        assertThat(routes.retain(java.util.Set.of(BOUND_3, EgressRoute.DIRECT))).isEqualTo(1);
        assertThat(routes.clientCount()).isEqualTo(1);
        assertThat(routes.retain(java.util.Set.of(BOUND_3))).isZero();

        // asked for again (a request that read the connection before it changed): a new client serves
        assertThat(sendAndSeeFrom(routes.route(BOUND_2))).isEqualTo("127.0.0.2");
        assertThat(built).hasValue(3);
    }

    @Test
    void aSendOnAClientLetGoMeanwhileGoesThroughTheRoutesNewClient_EB1() throws Exception {
        sendAndSeeFrom(routes.route(BOUND_2));
        JdkUpstreamHttp old = routes.clientOf(BOUND_2);
        assertThat(routes.retain(java.util.Set.of())).isEqualTo(1);
        assertThat(old.isShutDown()).isTrue();

        try (UpstreamResponse r = routes.sendVia(old, BOUND_2, new UpstreamRequest("POST",
                URI.create(upstream.baseUrl() + "/v1/chat/completions"), Map.of(), "{\"model\":\"m\"}".getBytes(UTF_8), TIMEOUT))) {
            assertThat(r.head().status()).isEqualTo(200);
        }
        assertThat(routes.clientOf(BOUND_2)).isNotNull().isNotSameAs(old);
    }

    @Test
    void anUnusableRouteFailsTheAttemptAndIsNeverSentDirectly_EB1() {
        dev.sluice.api.upstream.UpstreamHttp client = routes.route(EgressRoute.of(null, "socks5://user:secret@127.0.0.1:1080"));
        IOException e = null;
        try {
            client.send(new UpstreamRequest("GET", URI.create(upstream.baseUrl()), Map.of(), null, TIMEOUT)).close();
        } catch (IOException failure) {
            e = failure;
        }

        assertThat(e).hasMessage("unusable egress route EgressRoute[localAddress=null, proxyUrl=socks5://user:****@127.0.0.1:1080]:"
                + " proxy scheme 'socks5' is not supported (only http:// proxies); the request is not sent directly instead");
        assertThat(TransportError.of(e).kind()).isEqualTo(TransportErrorKind.OTHER);
        assertThat(upstream.requestCount()).isZero();
        assertThat(routes.clientCount()).isZero();
    }

    @Test
    void afterCloseRouteClientsAreGoneAndRoutedSendsFail_EB1() {
        sendAndSeeFrom(routes.route(BOUND_2));
        routes.close();

        assertThat(routes.clientCount()).isZero();
        assertThatThrownBy(() -> sendAndSeeFrom(routes.route(BOUND_2)))
                .hasRootCauseInstanceOf(IOException.class).hasRootCauseMessage("upstream clients are closed");
        // the default client belongs to the caller and still works
        assertThat(sendAndSeeFrom()).isEqualTo("127.0.0.1");
        routes.close(); // idempotent
    }

    @Test
    void aRoutesToStringHidesTheProxyPassword_SEC2() {
        assertThat(EgressRoute.of("10.0.0.5", "http://alice:s3cret@proxy.example:3128").toString())
                .isEqualTo("EgressRoute[localAddress=10.0.0.5, proxyUrl=http://alice:****@proxy.example:3128]")
                .doesNotContain("s3cret");
        assertThat(EgressRoute.of(null, "http://proxy.example:3128").toString())
                .isEqualTo("EgressRoute[localAddress=null, proxyUrl=http://proxy.example:3128]");
    }

    // ------------------------------------------------------------------ egress IP (EB-2)

    @Test
    void egressIpDefaults_EB2_SE3() {
        assertThat(EgressRoutes.EGRESS_IP_TTL).isEqualTo(Duration.ofMinutes(5));
        assertThat(EgressRoutes.PROBE_RETRY_AFTER_FAILURE).isEqualTo(Duration.ofMinutes(1));
        assertThat(EgressRoutes.PROBE_TIMEOUT).isEqualTo(Duration.ofSeconds(10));
        assertThat(EgressRoutes.PROBE_MAX_BYTES).isEqualTo(256);
        assertThat(EgressRoutes.CLOSE_GRACE).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theEgressIpOfABoundRouteIsItsAddressWithoutAnyNetworkCall_EB2() {
        assertThat(routes.egressIp(BOUND_2)).isEqualTo("127.0.0.2");
        assertThat(routes.egressIp(EgressRoute.of("::1", null))).isEqualTo("0:0:0:0:0:0:0:1");
        routes.route(BOUND_3);

        assertThat(probes.pending()).isZero();
        assertThat(probe.requestCount()).isZero();
        assertThat(built).hasValue(0);
    }

    @Test
    void aProbedEgressIpIsFetchedInTheBackgroundAndCachedForFiveMinutes_EB2() {
        // never on the request's path: the first call starts the probe and returns what is known (nothing)
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isNull();
        assertThat(probes.pending()).isEqualTo(1);
        probes.runAll();
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isEqualTo("203.0.113.7");
        assertThat(probe.requestCount()).isEqualTo(1);
        assertThat(probe.requests().get(0).path()).isEqualTo("/ip");

        clock.advance(Duration.ofMinutes(5).minusMillis(1));
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isEqualTo("203.0.113.7");
        assertThat(probes.pending()).isZero();

        probe.setDefault(MockResponse.json(200, "198.51.100.9"));
        clock.advance(Duration.ofMillis(1));
        // expired: refreshed in the background, the previous answer meanwhile
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isEqualTo("203.0.113.7");
        assertThat(probes.pending()).isEqualTo(1);
        probes.runAll();
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isEqualTo("198.51.100.9");
        assertThat(probe.requestCount()).isEqualTo(2);
    }

    @Test
    void aRouteIsProbedAtMostOnceAtATime_EB2() {
        EgressRoute viaProxy = EgressRoute.of(null, "http://127.0.0.1:1");
        routes.route(EgressRoute.DIRECT);
        routes.egressIp(EgressRoute.DIRECT);
        routes.route(EgressRoute.DIRECT);
        routes.egressIp(viaProxy);
        routes.egressIp(viaProxy);

        assertThat(probes.pending()).isEqualTo(2);
    }

    @Test
    void aFailedProbeLeavesTheEgressIpUnknownForAMinute_EB2() {
        probe.setDefault(MockResponse.status(500, "oops"));
        routes.egressIp(EgressRoute.DIRECT);
        probes.runAll();
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isNull();

        probe.setDefault(MockResponse.json(200, "203.0.113.7"));
        clock.advance(Duration.ofSeconds(59));
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isNull();
        assertThat(probes.pending()).isZero();

        clock.advance(Duration.ofSeconds(1));
        routes.egressIp(EgressRoute.DIRECT);
        probes.runAll();
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isEqualTo("203.0.113.7");
    }

    @Test
    void aProbeAnswerThatIsNotAnIpAddressOrAnUnreachableProbeGivesNull_EB2() {
        for (MockResponse bad : List.of(MockResponse.json(200, "hello"), MockResponse.json(200, "203.0.113.7 extra"),
                MockResponse.json(200, "1".repeat(300)), MockResponse.reset())) {
            probe.setDefault(bad);
            clock.advance(Duration.ofMinutes(5));
            routes.egressIp(EgressRoute.DIRECT);
            probes.runAll();
            assertThat(routes.egressIp(EgressRoute.DIRECT)).as(bad.toString()).isNull();
        }
    }

    @Test
    void anIpThatStopsBeingProbedIsForgottenRatherThanKept_EB2() {
        routes.egressIp(EgressRoute.DIRECT);
        probes.runAll();
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isEqualTo("203.0.113.7");

        probe.setDefault(MockResponse.status(503, "down"));
        clock.advance(Duration.ofMinutes(5));
        routes.egressIp(EgressRoute.DIRECT);
        probes.runAll();
        assertThat(routes.egressIp(EgressRoute.DIRECT)).isNull();
    }

    @Test
    void aProxiedRouteIsProbedThroughItsProxyEvenWithALocalAddress_EB2() throws Exception {
        try (TestProxy proxy = TestProxy.start()) {
            EgressRoute route = EgressRoute.of("127.0.0.3", "http://127.0.0.1:" + proxy.port());
            // behind a proxy the upstream sees the proxy's address, not the bound one
            assertThat(routes.egressIp(route)).isNull();
            probes.runAll();

            assertThat(routes.egressIp(route)).isEqualTo("203.0.113.7");
            assertThat(proxy.seen()).hasSize(1);
            assertThat(proxy.seen().get(0).requestLine()).isEqualTo("GET http://127.0.0.1:" + probe.port() + "/ip HTTP/1.1");
            assertThat(proxy.seen().get(0).clientAddress()).isEqualTo("127.0.0.3");
        }
    }

    @Test
    void theUserinfoOfABaseUrlNeverReachesAProxysRequestLine_issue29() throws Exception {
        try (TestProxy proxy = TestProxy.start()) {
            EgressRoute route = EgressRoute.of(null, "http://127.0.0.1:" + proxy.port());
            URI withSecret = URI.create(upstream.baseUrl().replace("http://", "http://alice:s3cret@") + "/v1/chat/completions");
            try (UpstreamResponse r = routes.route(route).send(new UpstreamRequest("POST", withSecret, Map.of(),
                    "{\"model\":\"m\"}".getBytes(UTF_8), TIMEOUT))) {
                r.bodyText(1 << 20);
            }
            assertThat(proxy.seen()).hasSize(1);
            assertThat(proxy.seen().get(0).requestLine()).isEqualTo("POST " + upstream.baseUrl() + "/v1/chat/completions HTTP/1.1")
                    .doesNotContain("s3cret");
        }
    }

    @Test
    void withStartsTheProbeSoTheIpIsKnownWhenTheAttemptIsLogged_EB2() {
        EgressRoute viaProxy = EgressRoute.of(null, "http://127.0.0.1:1");
        routes.route(viaProxy);
        assertThat(probes.pending()).isEqualTo(1);
    }

    @Test
    void withoutAProbeUrlOnlyBoundRoutesHaveAnEgressIp_EB2() {
        routes.close();
        routes = routes(null);

        assertThat(routes.egressIp(EgressRoute.DIRECT)).isNull();
        assertThat(routes.egressIp(EgressRoute.of(null, "http://127.0.0.1:1"))).isNull();
        assertThat(routes.egressIp(BOUND_2)).isEqualTo("127.0.0.2");
        routes.route(EgressRoute.DIRECT);
        assertThat(probes.pending()).isZero();
    }

    @Test
    void anUnusableLocalAddressHasNoEgressIp_EB2() {
        assertThat(routes.egressIp(EgressRoute.of("not-an-ip", null))).isNull();
        assertThat(probes.pending()).isZero();
    }

    @Test
    void createClearsTheTunnelingDisabledSchemesOnlyWhenUnset_EB1() {
        // surefire sets it empty, as bin/sluice should; create must not override an operator's value
        String before = System.getProperty(JdkUpstreamHttp.TUNNELING_DISABLED_SCHEMES);
        try (EgressRoutes created = EgressRoutes.create(new HelidonUpstreamHttp(TIMEOUT, TIMEOUT), TIMEOUT, null, clock)) {
            assertThat(System.getProperty(JdkUpstreamHttp.TUNNELING_DISABLED_SCHEMES)).isEqualTo(before);
            assertThat(created.clientCount()).isZero();
        }
    }
}
