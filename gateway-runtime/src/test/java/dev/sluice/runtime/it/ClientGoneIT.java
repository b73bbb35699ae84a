package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that leaves before the first byte cancels the upstream call (issue 19, defect 9): the
 * upstream connection is closed within about a second instead of staying open until the upstream
 * answers, stream or not; nothing is held against the connection and no permit is left.
 */
class ClientGoneIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;
    String connectionId;

    @BeforeEach
    void start() {
        // a long start timeout: without the cancellation the upstream call would run for a minute
        sluice = new SluiceHarness(dir, Duration.ofSeconds(60));
        upstream = MockUpstream.start().setDefault(MockResponse.hang());
        connectionId = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    private void leaveAfterTheUpstreamGotIt(boolean stream) throws Exception {
        String body = SluiceHarness.chatBody("alpha/m", stream);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
            assertThat(sent).isNotNull();
            s.close();
            long t0 = System.nanoTime();
            assertThat(upstream.awaitClientGone(sent, Duration.ofSeconds(5))).as("the upstream call was cancelled").isTrue();
            assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(3_000);
        }
    }

    @Test
    void aClientThatLeavesBeforeTheFirstByteCancelsTheUpstreamCall() throws Exception {
        leaveAfterTheUpstreamGotIt(false);
        leaveAfterTheUpstreamGotIt(true);
        Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            var row = read(sluice.send("GET", "/api/rate-limits", ADMIN_KEY, null).body()).get("data").get(0);
            assertThat(row.get("running").asInt()).isZero();
        });
        var conn = read(sluice.send("GET", "/api/providers/" + connectionId, ADMIN_KEY, null).body());
        assertThat(conn.get("testStatus").asText()).as("a client leaving is not the connection's failure").isEqualTo("active");
    }
}
