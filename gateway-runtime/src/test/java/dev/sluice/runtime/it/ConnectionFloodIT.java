package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.config.ClientLimits;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connections that never speak cannot take the server down (issue 29, point 1): past
 * {@code server.maxConnections} the oldest silent connection makes room, so health checks and
 * routed requests keep being answered through a flood; a silent connection is closed at the
 * first-byte timeout, a trickling request head at the head timeout; and once the flood is gone
 * the process's sockets are back to where they were.
 */
class ConnectionFloodIT {

    private static final int CAP = 16;
    private static final int FLOOD = 12 * CAP;

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;
    final List<Socket> flood = new ArrayList<>();

    @BeforeEach
    void start() {
        sluice = SluiceHarness.withClientLimits(dir, new ClientLimits(Duration.ofSeconds(2), Duration.ofSeconds(3), CAP));
        upstream = MockUpstream.start().setDefault(MockResponse.echoCompletion());
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        flood.forEach(ConnectionFloodIT::closeQuietly);
        sluice.close();
        upstream.close();
    }

    /** One request on a fresh connection that ends with the answer: status line, or "" when none came. */
    private String once(String method, String path, String auth, String body) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            s.setSoTimeout(10_000);
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            String head = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + (auth == null ? "" : "Authorization: Bearer " + auth + "\r\n")
                    + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + b.length + "\r\n") + "\r\n";
            s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().write(b);
            s.getOutputStream().flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return answer.isEmpty() ? "" : answer.substring(0, answer.indexOf('\r'));
        }
    }

    private void assertServing() throws IOException {
        assertThat(once("GET", "/health/live", null, null)).isEqualTo("HTTP/1.1 200 OK");
        assertThat(once("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", false))).isEqualTo("HTTP/1.1 200 OK");
    }

    /** Whether the server closed this connection (end of stream or reset), without waiting more than a moment. */
    private static boolean closedByServer(Socket s) {
        try {
            s.setSoTimeout(20);
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** This process's open sockets (client and server ends alike). */
    private static long openSockets() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("socket:");
                } catch (IOException e) {
                    return false; // closed while listed
                }
            }).count();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Test
    void aFloodOfSilentConnectionsPastTheCapLeavesHealthAndRoutingUpAndItsSocketsAreReleased() throws Exception {
        assertServing(); // the upstream connection pool and the admin client's connection are part of the baseline
        long baseline = openSockets();

        for (int i = 0; i < FLOOD; i++) {
            flood.add(new Socket(InetAddress.getLoopbackAddress(), sluice.server.port()));
            if (i % CAP == 0) {
                assertServing();
            }
        }
        assertServing();
        // past the cap the oldest silent connections were closed to make room: at most CAP stay open on the server
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(flood.stream().filter(s -> !closedByServer(s)).count()).isLessThanOrEqualTo(CAP));

        for (int i = 0; i < flood.size(); i++) {
            if (i % 2 == 0) {
                flood.get(i).setSoLinger(true, 0); // half end with a reset, half with a FIN
            }
            closeQuietly(flood.get(i));
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(openSockets()).isLessThanOrEqualTo(baseline));
        assertServing();
    }

    @Test
    void aSilentConnectionIsClosedAtTheFirstByteTimeoutAndATricklingHeadAtTheHeadTimeout() throws Exception {
        try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port());
                Socket trickle = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            long t0 = System.nanoTime();
            trickle.getOutputStream().write("GET /health/live HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            silent.setSoTimeout(10_000);
            assertThat(silent.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
            long silentMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(silentMs).as("first-byte timeout 2 s").isBetween(1_500L, 3_000L);

            // one header line every 400 ms: each read ends long before the 60 s idle bound, the head never does
            InputStream in = trickle.getInputStream();
            trickle.setSoTimeout(400);
            long closedMs = -1;
            for (int i = 0; i < 25 && closedMs < 0; i++) {
                try {
                    trickle.getOutputStream().write(("X-Slow-" + i + ": y\r\n").getBytes(StandardCharsets.US_ASCII));
                    if (in.read() < 0) {
                        closedMs = (System.nanoTime() - t0) / 1_000_000;
                    }
                } catch (SocketTimeoutException e) {
                    // still open
                } catch (IOException e) {
                    closedMs = (System.nanoTime() - t0) / 1_000_000;
                }
            }
            assertThat(closedMs).as("head timeout 3 s from the first byte").isBetween(2_500L, 4_500L);
        }
        assertServing();
    }
}
