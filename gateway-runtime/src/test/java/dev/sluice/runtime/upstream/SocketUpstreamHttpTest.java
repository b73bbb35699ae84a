package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.io.AnswerBuffers;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SocketUpstreamHttp} against scripted loopback upstreams: framing, keep-alive, staleness, timeouts, TLS (issue 26). */
class SocketUpstreamHttpTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Map<String, String> STREAM = Map.of("Accept", "text/event-stream");

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final SocketUpstreamHttp client = new SocketUpstreamHttp(TIMEOUT, AnswerBuffers.DEFAULTS, null, nanos::get);
    private ScriptedUpstream upstream;

    @AfterEach
    void stop() throws IOException {
        client.close();
        if (upstream != null) {
            upstream.close();
        }
    }

    private static String ok(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    /** Answers every request of every connection with {@code 200 hi}, keep-alive. */
    private static void keepAlive(ScriptedUpstream.Conn c, int index) throws IOException {
        while (c.request() != null) {
            c.write(ok("hi"));
        }
    }

    private static UpstreamRequest get(String url, Map<String, String> headers, Duration timeout) {
        return new UpstreamRequest("GET", URI.create(url), headers, null, timeout);
    }

    private String body(String url) throws IOException {
        try (UpstreamResponse r = client.send(get(url, Map.of(), TIMEOUT))) {
            return new String(r.wholeBody(), UTF_8);
        }
    }

    @Test
    void aSizedBodyIsReadAndItsConnectionServesTheNextRequest_I26() throws IOException {
        upstream = ScriptedUpstream.start(SocketUpstreamHttpTest::keepAlive);
        assertThat(body(upstream.url("/a"))).isEqualTo("hi");
        assertThat(client.idleConnections()).isEqualTo(1);
        assertThat(body(upstream.url("/b"))).isEqualTo("hi");
        assertThat(upstream.accepted()).isEqualTo(1);
        assertThat(upstream.requests()).hasSize(2);
    }

    @Test
    void theRequestCarriesHostAndContentLengthAndNothingItDidNotAskFor_I26_I32() throws IOException {
        upstream = ScriptedUpstream.start(SocketUpstreamHttpTest::keepAlive);
        String url = "http://user:secret@127.0.0.1:" + upstream.port() + "/v1/chat?x=1";
        UpstreamRequest post = new UpstreamRequest("POST", URI.create(url), Map.of("Authorization", "Bearer k", "Host", "evil"),
                "hi".getBytes(UTF_8), TIMEOUT);
        try (UpstreamResponse r = client.send(post)) {
            assertThat(r.head().status()).isEqualTo(200);
            assertThat(r.head().first("Content-Type")).hasValue("text/plain");
        }
        assertThat(upstream.requests()).containsExactly("POST /v1/chat?x=1 HTTP/1.1\r\nHost: 127.0.0.1:" + upstream.port()
                + "\r\nAuthorization: Bearer k\r\nContent-Length: 2\r\n\r\nhi");
    }

    @Test
    void aHeaderValueWithALineBreakIsRefusedWithoutSendingIt_I26() throws IOException {
        upstream = ScriptedUpstream.start(SocketUpstreamHttpTest::keepAlive);
        assertThatThrownBy(() -> client.send(get(upstream.url("/"), Map.of("X-Key", "a\r\nX-Injected: 1"), TIMEOUT)))
                .isInstanceOf(java.net.ProtocolException.class).hasMessageNotContaining("Injected");
        assertThat(upstream.accepted()).isZero();
    }

    @Test
    void aChunkedBodyIsDecodedAsItArrivesAndItsConnectionKept_I26() throws Exception {
        CountDownLatch firstRead = new CountDownLatch(1);
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
            try {
                firstRead.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
            c.write("lo\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n");
            keepAlive(c, i);
        });
        try (UpstreamResponse r = client.send(get(upstream.url("/"), STREAM, TIMEOUT))) {
            byte[] buf = new byte[64];
            int n = r.body().read(buf);
            assertThat(new String(buf, 0, n, UTF_8)).as("the bytes sent so far, while the rest is held").isEqualTo("hel");
            firstRead.countDown();
            assertThat(new String(r.body().readAllBytes(), UTF_8)).isEqualTo("lo world");
        }
        assertThat(client.idleConnections()).isEqualTo(1);
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void aChunkedAnswerSplitIntoSingleBytesIsDecoded_I26() throws IOException {
        String answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
        upstream = ScriptedUpstream.start((c, i) -> {
            while (c.request() != null) {
                for (int k = 0; k < answer.length(); k++) {
                    c.write(answer.substring(k, k + 1));
                }
            }
        });
        assertThat(body(upstream.url("/"))).isEqualTo("hello world");
        assertThat(body(upstream.url("/"))).isEqualTo("hello world");
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void aBodyWithoutLengthEndsAtEofAndItsConnectionIsNotKept_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it");
            c.socket.close();
        });
        assertThat(body(upstream.url("/"))).isEqualTo("all of it");
        assertThat(client.idleConnections()).isZero();
    }

    @Test
    void interimAnswersAreSkipped_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok("ok"));
        });
        try (UpstreamResponse r = client.send(get(upstream.url("/"), Map.of(), TIMEOUT))) {
            assertThat(r.head().status()).isEqualTo(200);
            assertThat(r.head().first("link")).isEmpty();
            assertThat(new String(r.wholeBody(), UTF_8)).isEqualTo("ok");
        }
    }

    @Test
    void aConnectionTheUpstreamClosesIsNotKept_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi");
        });
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        assertThat(client.idleConnections()).isZero();
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        assertThat(upstream.accepted()).isEqualTo(2);
    }

    @Test
    void headAnd204And304AnswersHaveNoBody_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
            c.request();
            c.write("HTTP/1.1 204 No Content\r\n\r\n");
            c.request();
            c.write("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n");
            keepAlive(c, i);
        });
        try (UpstreamResponse r = client.send(new UpstreamRequest("HEAD", URI.create(upstream.url("/")), Map.of(), null, TIMEOUT))) {
            assertThat(r.head().first("content-length")).hasValue("5");
            assertThat(r.body().read()).isEqualTo(-1);
        }
        for (int status : new int[] {204, 304}) {
            try (UpstreamResponse r = client.send(get(upstream.url("/"), Map.of(), TIMEOUT))) {
                assertThat(r.head().status()).isEqualTo(status);
                assertThat(r.body().read()).isEqualTo(-1);
            }
        }
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void aPooledConnectionTheUpstreamClosedIsRetriedOnceOnAFreshOne_I26() throws IOException {
        AtomicBoolean closed = new AtomicBoolean();
        upstream = ScriptedUpstream.start((c, i) -> {
            if (i == 0) {
                c.request();
                c.write(ok("first"));
                c.socket.close(); // its keep-alive timer, say: no Connection: close was sent
                closed.set(true);
            } else {
                keepAlive(c, i);
            }
        });
        assertThat(body(upstream.url("/"))).isEqualTo("first");
        assertThat(client.idleConnections()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).untilTrue(closed);
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        assertThat(upstream.accepted()).isEqualTo(2);
    }

    @Test
    void aFreshConnectionClosedWithoutAnAnswerFailsAsIsWithoutARetry_I26() throws IOException {
        AtomicReference<ScriptedUpstream> self = new AtomicReference<>();
        upstream = ScriptedUpstream.start((c, i) -> {
            self.get().stopAccepting(); // a retry would be refused: a different failure
            c.request();
            c.socket.close();
        });
        self.set(upstream);
        assertThatThrownBy(() -> body(upstream.url("/"))).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(TransportError.of((IOException) e).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET));
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void aPooledConnectionResetAfterTheRequestIsAFailedAttemptNotARetry_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write(ok("first"));
            c.request();
            c.socket.setSoLinger(true, 0); // the upstream took the request and died: a reset, not an idle close
            c.socket.close();
        });
        assertThat(body(upstream.url("/"))).isEqualTo("first");
        assertThatThrownBy(() -> body(upstream.url("/"))).isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(TransportError.of((IOException) e).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET));
        assertThat(upstream.accepted()).isEqualTo(1);
    }

    @Test
    void aBodyClosedEarlyDiscardsItsConnection_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write(ok("0123456789"));
            keepAlive(c, i);
        });
        try (UpstreamResponse r = client.send(get(upstream.url("/"), Map.of(), TIMEOUT))) {
            assertThat(r.body().readNBytes(2)).hasSize(2);
        }
        assertThat(client.idleConnections()).isZero();
        assertThat(body(upstream.url("/"))).isEqualTo("0123456789");
        assertThat(upstream.accepted()).isEqualTo(2);
    }

    @Test
    void aConnectionClosedInsideTheBodyIsAReset_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n012");
            c.socket.close();
        });
        try (UpstreamResponse r = client.send(get(upstream.url("/"), Map.of(), TIMEOUT))) {
            assertThatThrownBy(() -> r.body().readAllBytes()).isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(TransportError.of((IOException) e).kind()).isEqualTo(TransportErrorKind.CONNECTION_RESET));
        }
    }

    @Test
    void noHeadersWithinTheRequestTimeoutIsATimeout_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.in.read(); // until the client goes
        });
        assertThatThrownBy(() -> client.send(get(upstream.url("/"), Map.of(), Duration.ofMillis(200))))
                .isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void aReadOutlivingItsBoundTimesOutWithoutASocketReadTimeout_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.in.read(); // no answer, until the client goes
        });
        try (UpstreamConnection c = UpstreamConnection.open(Origin.of(URI.create(upstream.url("/"))), 5_000, 200, null)) {
            // no SO_TIMEOUT: a timed read would park its virtual thread on the JDK's delay scheduler
            assertThat(c.socketReadTimeoutMs()).isZero();
            c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(UTF_8), 300);
            long started = System.nanoTime();
            assertThatThrownBy(c::readLine).isInstanceOf(SocketTimeoutException.class).hasMessage("Read timed out");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(4));
            // the socket is closed, and the connection stays failed
            assertThatThrownBy(c::readLine).isInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void aStreamSilentForItsTimeoutTimesOut_I26() throws IOException {
        upstream = ScriptedUpstream.start((c, i) -> {
            c.request();
            c.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
            c.in.read();
        });
        try (UpstreamResponse r = client.send(get(upstream.url("/"), STREAM, Duration.ofMillis(200)))) {
            assertThatThrownBy(() -> r.body().read()).isInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void aConnectionIdleLongerThanTheBoundIsNotUsed_I26() throws IOException {
        upstream = ScriptedUpstream.start(SocketUpstreamHttpTest::keepAlive);
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        nanos.addAndGet(SocketUpstreamHttp.MAX_IDLE.toNanos());
        assertThat(body(upstream.url("/"))).isEqualTo("hi");
        assertThat(upstream.accepted()).isEqualTo(2);
        assertThat(client.idleConnections()).as("the stale one closed, the fresh one kept").isEqualTo(1);
    }

    @Test
    void httpsVerifiesTheHostName_I26(@TempDir Path dir) throws Exception {
        try (TlsOrigin origin = TlsOrigin.start(dir);
                SocketUpstreamHttp tls = new SocketUpstreamHttp(TIMEOUT, AnswerBuffers.DEFAULTS, origin.clientContext(), nanos::get)) {
            try (UpstreamResponse r = tls.send(get("https://127.0.0.1:" + origin.port() + "/x", Map.of(), TIMEOUT))) {
                assertThat(r.head().status()).isEqualTo(200);
                assertThat(new String(r.wholeBody(), UTF_8)).isEqualTo("ok");
            }
            assertThat(origin.requestLines()).containsExactly("GET /x HTTP/1.1");
            // the certificate names 127.0.0.1 only
            assertThatThrownBy(() -> tls.send(get("https://localhost:" + origin.port() + "/x", Map.of(), TIMEOUT)))
                    .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
        }
    }
}
