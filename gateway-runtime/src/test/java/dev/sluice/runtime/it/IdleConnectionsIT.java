package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle client connections are closed (issue 19, defect 7; {@code server.idleConnectionTimeoutMs}):
 * an idle keep-alive connection, half-sent headers and a body that stopped arriving do not hold a
 * connection open for ever.
 */
class IdleConnectionsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = SluiceHarness.withIdleTimeout(dir, Duration.ofSeconds(1));
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    /** Sends the bytes, then waits for the server to close the connection; returns how long that took, ms (or -1). */
    private long closedAfter(String bytes) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(bytes.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long t0 = System.nanoTime();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            try {
                while (in.read(buf) >= 0) {
                    // an answer (e.g. to a complete request) is read past; the close is what counts
                }
            } catch (java.net.SocketTimeoutException e) {
                return -1;
            } catch (java.io.IOException reset) {
                // closed by reset
            }
            return (System.nanoTime() - t0) / 1_000_000;
        }
    }

    @Test
    void idleAndStalledConnectionsAreClosed() throws Exception {
        assertThat(closedAfter("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")).as("idle keep-alive").isBetween(0L, 5_000L);
        assertThat(closedAfter("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Half: ")).as("half-sent headers").isBetween(0L, 5_000L);
        assertThat(closedAfter("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\""))
                .as("a short body").isBetween(0L, 5_000L);
    }

    @Test
    void aKeepAliveConnectionIdleAfterAStreamIsClosedToo_issue28() throws Exception {
        // a stream starts a watcher of the client's socket (issue 28): the connection's next read is the
        // watcher's, and it must still end at the idle timeout
        try (dev.sluice.testkit.MockUpstream upstream = dev.sluice.testkit.MockUpstream.start()) {
            sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
            String key = sluice.addKey("{\"name\":\"it\"}");
            upstream.enqueue(dev.sluice.testkit.MockResponse.chatStream(java.util.List.of("a", "b"), Duration.ZERO));
            String body = SluiceHarness.chatBody("alpha/m", true);
            assertThat(closedAfter("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body))
                    .as("idle after a stream").isBetween(0L, 5_000L);
        }
    }
}
