package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.SseEvents;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The route client on {@code java.net.http} (SPEC §16.3): local-address binding, HTTP proxies,
 * streaming, and failures classified exactly as on the Helidon client. Loopback only: Linux routes
 * all of 127.0.0.0/8 through {@code lo}, so 127.0.0.2 and 127.0.0.3 are bindable local addresses.
 */
class JdkUpstreamHttpTest {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String CHAT = "{\"model\":\"m\",\"messages\":[]}";

    private MockUpstream upstream;
    private final List<JdkUpstreamHttp> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        upstream = MockUpstream.start();
    }

    @AfterEach
    void stop() {
        clients.forEach(JdkUpstreamHttp::shutdownNow);
        upstream.close();
    }

    private JdkUpstreamHttp client(EgressRoute route) {
        return client(route, CONNECT_TIMEOUT, null);
    }

    private JdkUpstreamHttp client(EgressRoute route, Duration connectTimeout, SSLContext ssl) {
        JdkUpstreamHttp c = new JdkUpstreamHttp(route, connectTimeout, ssl, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS);
        clients.add(c);
        return c;
    }

    private static UpstreamRequest post(String url, Map<String, String> headers, Duration timeout) {
        return new UpstreamRequest("POST", URI.create(url), headers, CHAT.getBytes(UTF_8), timeout);
    }

    // ------------------------------------------------------------------ local address

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.2", "127.0.0.3"})
    void aRouteWithALocalAddressSendsFromThatAddress_EB1(String local) throws Exception {
        JdkUpstreamHttp client = client(EgressRoute.of(local, null));

        try (UpstreamResponse r = client.send(post(upstream.baseUrl() + "/v1/chat/completions", Map.of(), TIMEOUT))) {
            assertThat(r.head().status()).isEqualTo(200);
            assertThat(r.bodyText(1 << 20)).contains("\"object\":\"chat.completion\"");
        }

        RecordedRequest seen = upstream.takeRequest(TIMEOUT);
        assertThat(seen.remoteAddress()).isEqualTo(local);
        assertThat(seen.path()).isEqualTo("/v1/chat/completions");
    }

    @Test
    void forwardsMethodHeadersAndBodyAndLeavesOutTheHeadersTheJdkSetsItself_EB1() throws Exception {
        JdkUpstreamHttp client = client(EgressRoute.of("127.0.0.2", null));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer sk-test");
        headers.put("X-Custom", "a");
        headers.put("Host", "elsewhere.example");
        headers.put("Connection", "close");
        headers.put("Content-Length", "999");
        headers.put("Expect", "100-continue");
        headers.put("Upgrade", "h2c");
        upstream.enqueue(MockResponse.status(429, "{\"error\":\"slow\"}").header("Retry-After", "7"));

        try (UpstreamResponse r = client.send(post(upstream.baseUrl() + "/v1/x?y=1", headers, TIMEOUT))) {
            assertThat(r.head().status()).isEqualTo(429);
            assertThat(r.head().first("Retry-After")).hasValue("7");
            assertThat(r.head().headers()).containsKey("retry-after");
            assertThat(r.bodyText(1 << 20)).isEqualTo("{\"error\":\"slow\"}");
        }

        RecordedRequest seen = upstream.takeRequest(TIMEOUT);
        assertThat(seen.method()).isEqualTo("POST");
        assertThat(seen.path()).isEqualTo("/v1/x?y=1");
        assertThat(seen.body()).isEqualTo(CHAT);
        assertThat(seen.header("authorization")).isEqualTo("Bearer sk-test");
        assertThat(seen.header("x-custom")).isEqualTo("a");
        assertThat(seen.header("host")).isEqualTo("127.0.0.1:" + upstream.port());
        assertThat(seen.header("content-length")).isEqualTo(String.valueOf(CHAT.length()));
        assertThat(seen.header("expect")).isNull();
        assertThat(seen.header("upgrade")).isNull();
        assertThat(seen.header("proxy-authorization")).isNull();
    }

    @Test
    void aGetWithoutBodyIsSentAsAPlainGet_EB1() throws Exception {
        JdkUpstreamHttp client = client(EgressRoute.of("127.0.0.3", null));
        upstream.enqueue(MockResponse.json(200, "{\"data\":[]}"));

        try (UpstreamResponse r = client.send(new UpstreamRequest("GET", URI.create(upstream.baseUrl() + "/v1/things"),
                Map.of(), null, TIMEOUT))) {
            assertThat(r.bodyText(100)).isEqualTo("{\"data\":[]}");
        }

        RecordedRequest seen = upstream.takeRequest(TIMEOUT);
        assertThat(seen.method()).isEqualTo("GET");
        assertThat(seen.body()).isEmpty();
        assertThat(seen.header("content-length")).isNull();
    }

    @Test
    void anSseStreamArrivesIncrementally_EB1() throws Exception {
        // the first event, then the upstream holds the stream open: only an incremental reader gets the event
        upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("one")).thenHold());
        JdkUpstreamHttp client = client(EgressRoute.of("127.0.0.2", null));

        try (UpstreamResponse r = client.send(post(upstream.baseUrl() + "/v1/chat/completions", Map.of(), TIMEOUT))) {
            assertThat(r.head().first("content-type")).hasValue("text/event-stream");
            InputStream body = r.body();
            java.util.concurrent.CompletableFuture<String> first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                byte[] buf = new byte[64 * 1024];
                try {
                    int n = body.read(buf);
                    return n < 0 ? null : new String(buf, 0, n, UTF_8);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
            assertThat(first).as("the first event while the stream is still open").succeedsWithin(TIMEOUT)
                    .isEqualTo(SseEvents.openAiDelta("one"));
        }
    }

    // ------------------------------------------------------------------ failures, alike on every client (ST-0)

    /** Sends one request through each client and returns the kind each failure classified as. */
    private List<TransportErrorKind> kinds(String url, Duration connectTimeout, Duration timeout, boolean readBody,
            MockResponse... script) {
        UpstreamHttp helidon = new HelidonUpstreamHttp(connectTimeout, TIMEOUT);
        UpstreamHttp jdk = client(EgressRoute.of("127.0.0.2", null), connectTimeout, null);
        UpstreamHttp socket = new SocketUpstreamHttp(connectTimeout, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS, null, System::nanoTime);
        List<TransportErrorKind> kinds = new ArrayList<>();
        for (UpstreamHttp c : List.of(helidon, jdk, socket)) {
            for (MockResponse m : script) {
                upstream.enqueue(m);
            }
            try (UpstreamResponse r = c.send(post(url, Map.of(), timeout))) {
                if (readBody) {
                    r.body().readAllBytes();
                }
                kinds.add(null);
            } catch (IOException e) {
                kinds.add(TransportError.of(e).kind());
            }
        }
        return kinds;
    }

    @Test
    void noResponseHeadersWithinTheRequestTimeoutIsATimeout_ST0() {
        assertThat(kinds(upstream.baseUrl(), CONNECT_TIMEOUT, Duration.ofMillis(200), false, MockResponse.hang()))
                .containsExactly(TransportErrorKind.TIMEOUT, TransportErrorKind.TIMEOUT, TransportErrorKind.TIMEOUT);
    }

    @Test
    void aBodyReadWaitingLongerThanTheRequestTimeoutIsATimeout_ST0() {
        assertThat(kinds(upstream.baseUrl(), CONNECT_TIMEOUT, Duration.ofMillis(200), true,
                MockResponse.chatStream(List.of("a", "b"), Duration.ofSeconds(30))))
                .containsExactly(TransportErrorKind.TIMEOUT, TransportErrorKind.TIMEOUT, TransportErrorKind.TIMEOUT);
    }

    @Test
    void aRefusedConnectionIsAConnectFailure_ST0() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        assertThat(kinds("http://127.0.0.1:" + port, CONNECT_TIMEOUT, TIMEOUT, false))
                .containsExactly(TransportErrorKind.CONNECT_FAILED, TransportErrorKind.CONNECT_FAILED, TransportErrorKind.CONNECT_FAILED);
    }

    @Test
    void aConnectionResetBeforeTheHeadersIsAReset_ST0() {
        assertThat(kinds(upstream.baseUrl(), CONNECT_TIMEOUT, TIMEOUT, false, MockResponse.reset()))
                .containsExactly(TransportErrorKind.CONNECTION_RESET, TransportErrorKind.CONNECTION_RESET, TransportErrorKind.CONNECTION_RESET);
    }

    @Test
    void aConnectionResetInsideTheBodyIsAReset_ST0() {
        assertThat(kinds(upstream.baseUrl(), CONNECT_TIMEOUT, TIMEOUT, true, MockResponse.resetAfterHeaders()))
                .containsExactly(TransportErrorKind.CONNECTION_RESET, TransportErrorKind.CONNECTION_RESET, TransportErrorKind.CONNECTION_RESET);
    }

    @Test
    void anUnresolvableHostIsADnsFailure_ST0() {
        // .invalid never resolves (RFC 6761), so no query leaves the machine with an answer
        assertThat(kinds("http://sluice-test.invalid", CONNECT_TIMEOUT, TIMEOUT, false))
                .containsExactly(TransportErrorKind.DNS, TransportErrorKind.DNS, TransportErrorKind.DNS);
    }

    @Test
    void noConnectionWithinTheConnectTimeoutIsATimeout_ST0() throws IOException {
        // a listener that never accepts, its accept queue filled: Linux then drops further SYNs
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            List<Socket> fill = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    Socket f = new Socket();
                    try {
                        f.connect(s.getLocalSocketAddress(), 200);
                        fill.add(f);
                    } catch (IOException full) {
                        f.close();
                        break;
                    }
                }
                assertThat(kinds("http://127.0.0.1:" + s.getLocalPort(), Duration.ofMillis(300), TIMEOUT, false))
                        .containsExactly(TransportErrorKind.TIMEOUT, TransportErrorKind.TIMEOUT, TransportErrorKind.TIMEOUT);
            } finally {
                for (Socket f : fill) {
                    f.close();
                }
            }
        }
    }

    // ------------------------------------------------------------------ proxies

    @Test
    void aPlainHttpTargetIsSentToTheProxyInAbsoluteFormWithItsCredentials_EB1() throws Exception {
        try (TestProxy proxy = TestProxy.start()) {
            JdkUpstreamHttp client = client(EgressRoute.of(null, "http://alice:s%3Acret@127.0.0.1:" + proxy.port()));

            try (UpstreamResponse r = client.send(post(upstream.baseUrl() + "/v1/chat/completions", Map.of("X-Custom", "a"),
                    TIMEOUT))) {
                assertThat(r.head().status()).isEqualTo(200);
                r.bodyText(1 << 20);
            }

            assertThat(proxy.seen()).hasSize(1);
            TestProxy.Seen seen = proxy.seen().get(0);
            assertThat(seen.requestLine()).isEqualTo("POST http://127.0.0.1:" + upstream.port() + "/v1/chat/completions HTTP/1.1");
            assertThat(seen.header("proxy-authorization"))
                    .isEqualTo("Basic " + Base64.getEncoder().encodeToString("alice:s:cret".getBytes(UTF_8)));
            RecordedRequest atOrigin = upstream.takeRequest(TIMEOUT);
            assertThat(atOrigin.path()).isEqualTo("/v1/chat/completions");
            assertThat(atOrigin.header("x-custom")).isEqualTo("a");
            assertThat(atOrigin.body()).isEqualTo(CHAT);
        }
    }

    @Test
    void anHttpsTargetIsTunnelledWithConnectCarryingTheProxyCredentials_EB1(@TempDir Path dir) throws Exception {
        // java.net.http drops Basic credentials from CONNECT unless this is empty (the build and bin/sluice set it)
        assertThat(System.getProperty(JdkUpstreamHttp.TUNNELING_DISABLED_SCHEMES)).isEmpty();
        try (TlsOrigin origin = TlsOrigin.start(dir); TestProxy proxy = TestProxy.start()) {
            JdkUpstreamHttp client = client(EgressRoute.of(null, "http://bob:pw@127.0.0.1:" + proxy.port()), CONNECT_TIMEOUT,
                    origin.clientContext());

            try (UpstreamResponse r = client.send(new UpstreamRequest("GET", URI.create("https://127.0.0.1:" + origin.port()
                    + "/v1/models"), Map.of(), null, TIMEOUT))) {
                assertThat(r.head().status()).isEqualTo(200);
                assertThat(r.bodyText(100)).isEqualTo("ok");
            }

            assertThat(proxy.seen()).hasSize(1);
            TestProxy.Seen connect = proxy.seen().get(0);
            assertThat(connect.requestLine()).isEqualTo("CONNECT 127.0.0.1:" + origin.port() + " HTTP/1.1");
            assertThat(connect.header("proxy-authorization"))
                    .isEqualTo("Basic " + Base64.getEncoder().encodeToString("bob:pw".getBytes(UTF_8)));
            assertThat(origin.requestLines()).containsExactly("GET /v1/models HTTP/1.1");
        }
    }

    @Test
    void aProxyWithoutCredentialsGetsNoProxyAuthorizationAndSeesTheBoundLocalAddress_EB1() throws Exception {
        try (TestProxy proxy = TestProxy.start()) {
            JdkUpstreamHttp client = client(EgressRoute.of("127.0.0.3", "http://127.0.0.1:" + proxy.port()));

            try (UpstreamResponse r = client.send(post(upstream.baseUrl() + "/v1/chat/completions", Map.of(), TIMEOUT))) {
                assertThat(r.head().status()).isEqualTo(200);
            }

            TestProxy.Seen seen = proxy.seen().get(0);
            assertThat(seen.header("proxy-authorization")).isNull();
            assertThat(seen.clientAddress()).isEqualTo("127.0.0.3");
        }
    }

    @Test
    void anUnreachableProxyIsAConnectFailure_EB1() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        JdkUpstreamHttp client = client(EgressRoute.of(null, "http://127.0.0.1:" + port));

        assertThatThrownBy(() -> client.send(post(upstream.baseUrl(), Map.of(), TIMEOUT)))
                .isInstanceOfSatisfying(IOException.class,
                        e -> assertThat(TransportError.of(e).kind()).isEqualTo(TransportErrorKind.CONNECT_FAILED));
        assertThat(upstream.requestCount()).isZero();
    }

    @Test
    void routesTheJdkCannotHonourAreRefusedRatherThanSentDirectly_EB1() {
        assertThatThrownBy(() -> client(EgressRoute.of(null, "socks5://127.0.0.1:1080")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("proxy scheme 'socks5' is not supported (only http:// proxies); the request is not sent directly instead");
        assertThatThrownBy(() -> client(EgressRoute.of(null, "https://127.0.0.1:3128")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("proxy scheme 'https' is not supported");
        assertThatThrownBy(() -> client(EgressRoute.of(null, "http://")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client(EgressRoute.of("proxy.example", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("localAddress 'proxy.example' is not an IP address literal");
    }

    @Test
    void spiDefaultsOfTheRouteClient_EB1() {
        assertThat(JdkUpstreamHttp.DEFAULT_PROXY_PORT).isEqualTo(80);
        assertThat(JdkUpstreamHttp.RESTRICTED_HEADERS).containsExactlyInAnyOrder("connection", "content-length", "expect", "host",
                "upgrade");
        assertThat(JdkUpstreamHttp.TUNNELING_DISABLED_SCHEMES).isEqualTo("jdk.http.auth.tunneling.disabledSchemes");
    }

    @Test
    void closingAnUnreadResponseAbortsItsBodyAndTheNextRequestStillWorks_EB1() throws Exception {
        upstream.enqueue(MockResponse.chatStream(List.of("a", "b"), Duration.ofSeconds(30)));
        JdkUpstreamHttp client = client(EgressRoute.of("127.0.0.2", null));

        UpstreamResponse r = client.send(post(upstream.baseUrl(), Map.of(), TIMEOUT));
        r.close();
        assertThatThrownBy(() -> r.body().read()).isInstanceOf(IOException.class).hasMessage("stream closed");

        try (UpstreamResponse next = client.send(post(upstream.baseUrl(), Map.of(), TIMEOUT))) {
            assertThat(next.head().status()).isEqualTo(200);
        }
        assertThat(upstream.requestCount()).isEqualTo(2);
    }

    @Test
    void theProxyHostIsResolvedWhenConnecting_EB1() {
        // an unresolvable proxy host builds a client, and fails each attempt as DNS
        JdkUpstreamHttp client = client(EgressRoute.of(null, "http://proxy.sluice-test.invalid:3128"));

        assertThatThrownBy(() -> client.send(post(upstream.baseUrl(), Map.of(), TIMEOUT)))
                .isInstanceOfSatisfying(IOException.class,
                        e -> assertThat(TransportError.of(e).kind()).isEqualTo(TransportErrorKind.DNS));
    }
}
