package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request lines that are not HTTP/1.1 (issue 19, defect 6): HTTP/1.0 clients (nginx's default
 * {@code proxy_http_version 1.0}, {@code ab}) are served — an HTTP/1.0 answer, no chunked framing,
 * the connection closed at its end — other versions get a 505 and a URI of ~100 KB a 414, each in
 * the error envelope instead of an empty reply; a {@code Connection: close} answer closes the socket.
 */
class Http10IT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"it\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    /** What the server sent before it closed the connection (the read fails the test if it never closes). */
    private String exchange(byte[] request) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0; ) {
                got.write(buf, 0, n);
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }

    private String post10(String body, String extraHeaders) throws Exception {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return exchange(("POST /v1/chat/completions HTTP/1.0\r\nAuthorization: Bearer " + key + "\r\n" + extraHeaders
                + "Content-Type: application/json\r\nContent-Length: " + b.length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anHttp10ClientGetsAnHttp10AnswerAndTheClose() throws Exception {
        upstream.setDefault(MockResponse.completion("hello from upstream"));
        String answer = post10(SluiceHarness.chatBody("alpha/m", false), "");
        assertThat(answer).startsWith("HTTP/1.0 200 ");
        assertThat(answer.toLowerCase()).contains("connection: close").doesNotContain("transfer-encoding");
        assertThat(answer).contains("hello from upstream");

        // a client that asks for keep-alive still gets one answer and the close (chunked bodies cannot be framed in 1.0)
        String again = post10(SluiceHarness.chatBody("alpha/m", false), "Connection: keep-alive\r\nHost: example.test\r\n");
        assertThat(again).startsWith("HTTP/1.0 200 ").contains("hello from upstream");
    }

    @Test
    void anHttp10StreamIsDechunkedAndEndsWithTheConnection() throws Exception {
        upstream.setDefault(MockResponse.chatStream(List.of("Hel", "lo"), Duration.ofMillis(5)));
        String answer = post10(SluiceHarness.chatBody("alpha/m", true), "");
        assertThat(answer).startsWith("HTTP/1.0 200 ");
        String lower = answer.toLowerCase();
        assertThat(lower).contains("content-type: text/event-stream").doesNotContain("transfer-encoding");
        String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        // no chunk-size lines: the body is the events themselves, from the first byte
        assertThat(body).startsWith("data: ");
        assertThat(body).contains("\"Hel\"").contains("\"lo\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void otherVersionsAndHugeUrisGetAnEnvelopeNotAnEmptyReply() throws Exception {
        for (String version : List.of("HTTP/2.0", "HTTP/1.2", "HTTP/0.9")) {
            String answer = exchange(("GET /v1/models " + version + "\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(answer).as(version).startsWith("HTTP/1.1 505 ").contains("\"code\":\"http_version_not_supported\"");
        }
        String huge = exchange(("GET /" + "a".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(huge).startsWith("HTTP/1.1 414 ").contains("\"code\":\"uri_too_long\"");
        String huge10 = exchange(("GET /" + "a".repeat(100_000) + " HTTP/1.0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(huge10).contains(" 414 ").contains("\"code\":\"uri_too_long\"");
    }

    @Test
    void aConnectionCloseAnswerClosesTheSocket() throws Exception {
        long t0 = System.nanoTime();
        String answer = exchange("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(answer).startsWith("HTTP/1.1 200 ").contains("Connection: close");
        // the idle-connection bound is minutes by default: a close within seconds is the answer's own
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
    }

    @Test
    void anErrorAnswerIsWrittenBeforeTheClose() throws Exception {
        // the handler throws and the error mapper writes the answer after the filters: it must not be lost
        upstream.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        byte[] body = SluiceHarness.chatBody("alpha/m", false).getBytes(StandardCharsets.UTF_8);
        for (String version : List.of("HTTP/1.1", "HTTP/1.0")) {
            String answer = exchange(("POST /v1/chat/completions " + version + "\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer "
                    + key + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n"
                    + new String(body, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
            assertThat(answer).as(version).startsWith(version + " 503 ").contains("overloaded");
        }
    }
}
