package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow clients do not stop others (issue 19, SEC-6): 200 idle half-open connections and a client
 * that reads a long stream a few bytes at a time while others are served at once.
 */
class SlowClientsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start().setDefault(MockResponse.echoCompletion());
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    @Test
    void idleHalfOpenConnectionsAndASlowReaderDoNotHoldUpOthers() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port());
                if (i % 2 == 0) {
                    // half a request line, then nothing
                    s.getOutputStream().write("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                }
                idle.add(s);
            }
            // a long stream the slow client reads 16 bytes at a time, slowly
            List<String> pieces = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                pieces.add("piece-" + i + " ");
            }
            upstream.enqueue(MockResponse.chatStream(pieces, Duration.ZERO));
            Socket slow = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port());
            slow.setReceiveBufferSize(1024);
            String body = SluiceHarness.chatBody("alpha/m", true);
            OutputStream out = slow.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = slow.getInputStream();
            byte[] first = new byte[16];
            assertThat(in.read(first)).isPositive();

            long t0 = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, SluiceHarness.chatBody("alpha/m", false));
                assertThat(r.statusCode()).isEqualTo(200);
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).as("20 requests beside 200 idle connections and a slow reader").isLessThan(5_000);
            assertThat(sluice.send("GET", "/health/ready", null, null).statusCode()).isEqualTo(200);
            slow.close();
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }
}
