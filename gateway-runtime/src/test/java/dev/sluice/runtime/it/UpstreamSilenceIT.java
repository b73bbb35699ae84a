package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 32 §3: an upstream that never sends its headers holds a streamed request no longer than
 * {@code streamRecovery.readinessTimeoutMs} (counted from the attempt's start), and a connect that
 * does not complete no longer than {@code upstream.connectTimeoutMs}; both are the gateway's own
 * timers (BO-7: no breaker failure, no cooldown), fail over to the next connection, and answer 504
 * naming the bound when none serves.
 */
class UpstreamSilenceIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream healthy;
    String key;

    @BeforeEach
    void start() {
        // headers may take 60 s, beyond the HTTP client's 30 s: only the bounds under test can end these attempts
        sluice = SluiceHarness.withUpstreamTimeouts(dir, Duration.ofSeconds(1), Duration.ofSeconds(60));
        healthy = MockUpstream.start();
        key = sluice.addKey("{\"name\":\"it\"}");
        HttpResponse<String> r = sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"streamRecovery\":{\"readinessTimeoutMs\":1000}}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @AfterEach
    void stop() {
        sluice.close();
        healthy.close();
    }

    @Test
    void aStreamWhoseUpstreamNeverSendsHeadersEndsAtTheReadinessBoundAndFailsOver() {
        try (MockUpstream silent = MockUpstream.start().setDefault(MockResponse.hang())) {
            String id = sluice.addOpenAiCompatible("alpha", silent.baseUrl() + "/v1", 1);

            long t0 = System.nanoTime();
            HttpResponse<String> alone = sluice.send("POST", "/v1/chat/completions", key, chatBody("alpha/m", true));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(alone.statusCode()).as(alone.body()).isEqualTo(504);
            assertThat(read(alone.body()).at("/error/code").asText()).isEqualTo("STREAM_READINESS_TIMEOUT");
            assertThat(tookMs).as("the wait for headers is part of the readiness bound").isBetween(900L, 5_000L);
            assertGatewayOwn(id);

            sluice.addOpenAiCompatible("alpha", healthy.baseUrl() + "/v1", 2);
            healthy.enqueue(MockResponse.chatStream(List.of("from", " the second"), Duration.ZERO));
            HttpResponse<String> failedOver = sluice.send("POST", "/v1/chat/completions", key, chatBody("alpha/m", true));
            assertThat(failedOver.statusCode()).as(failedOver.body()).isEqualTo(200);
            assertThat(failedOver.body()).contains("the second");
        }
    }

    @Test
    void aConnectThatNeverCompletesEndsAtTheConnectBoundAndFailsOver() throws Exception {
        try (Blackhole hole = new Blackhole()) {
            String id = sluice.addOpenAiCompatible("alpha", "http://127.0.0.1:" + hole.port() + "/v1", 1);

            long t0 = System.nanoTime();
            HttpResponse<String> alone = sluice.send("POST", "/v1/chat/completions", key, chatBody("alpha/m", false));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(alone.statusCode()).as(alone.body()).isEqualTo(504);
            assertThat(read(alone.body()).at("/error/code").asText()).isEqualTo("UPSTREAM_CONNECT_TIMEOUT");
            assertThat(read(alone.body()).at("/error/message").asText()).contains("upstream.connectTimeoutMs");
            assertThat(tookMs).isBetween(900L, 5_000L);
            assertGatewayOwn(id);

            sluice.addOpenAiCompatible("alpha", healthy.baseUrl() + "/v1", 2);
            healthy.enqueue(MockResponse.completion("from the second"));
            HttpResponse<String> failedOver = sluice.send("POST", "/v1/chat/completions", key, chatBody("alpha/m", false));
            assertThat(failedOver.statusCode()).as(failedOver.body()).isEqualTo(200);
            assertThat(read(failedOver.body()).at("/choices/0/message/content").asText()).isEqualTo("from the second");
        }
    }

    /** BO-7: no provider-breaker failure, no cooldown of the connection. */
    private void assertGatewayOwn(String connectionId) {
        JsonNode health = read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body());
        for (JsonNode b : health.path("providerBreakers")) {
            assertThat(b.get("failureCount").asInt()).as(b.toString()).isZero();
        }
        JsonNode conn = read(sluice.send("GET", "/api/providers/" + connectionId, ADMIN_KEY, null).body());
        assertThat(conn.get("testStatus").asText()).isEqualTo("active");
        assertThat(conn.get("rateLimitedUntil").isNull()).isTrue();
    }

    /** A loopback listener whose accept queue is full and never drained: a connect to it gets no answer. */
    static final class Blackhole implements AutoCloseable {
        private final ServerSocket server;
        private final List<Socket> filling = new ArrayList<>();

        Blackhole() throws Exception {
            server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            for (int i = 0; i < 8; i++) {
                Socket s = new Socket();
                filling.add(s);
                try {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 200);
                } catch (SocketTimeoutException e) {
                    return; // the queue is full: SYNs are dropped from now on
                }
            }
            throw new IllegalStateException("the accept queue never filled up");
        }

        int port() {
            return server.getLocalPort();
        }

        @Override
        public void close() throws Exception {
            for (Socket s : filling) {
                s.close();
            }
            server.close();
        }
    }
}
