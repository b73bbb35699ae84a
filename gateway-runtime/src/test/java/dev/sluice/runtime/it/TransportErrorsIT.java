package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests the HTTP layer refuses before routing get the error envelope, not an empty body
 * (API-6): raw bytes over a loopback socket, since no client library sends them.
 */
class TransportErrorsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    /** Sends raw bytes and reads the answer until the server closes or a full answer arrived. */
    private String raw(String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static JsonNode body(String answer) {
        int at = answer.indexOf("\r\n\r\n");
        assertThat(at).as(answer).isPositive();
        String body = answer.substring(at + 4);
        assertThat(answer).containsIgnoringCase("content-type: application/json");
        return read(body);
    }

    private static void assertEnvelope(String answer, int status, String code) {
        assertThat(answer).startsWith("HTTP/1.1 " + status);
        JsonNode err = body(answer).get("error");
        assertThat(err.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(err.get("code").asText()).isEqualTo(code);
        assertThat(err.get("message").asText()).isNotBlank();
    }

    @Test
    void aBareLineFeedInAHeaderIsA400WithTheEnvelope_API6() throws IOException {
        assertEnvelope(raw("GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\nb\r\n\r\n"), 400, "invalid_request");
    }

    @Test
    void conflictingContentLengthAndTransferEncodingIsA400WithTheEnvelope_API6() throws IOException {
        assertEnvelope(raw("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                400, "invalid_request");
    }

    @Test
    void headersPastTheLimitAreRefusedWithTheEnvelope_API6() throws IOException {
        String answer = raw("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(70 * 1024) + "\r\n\r\n");
        assertThat(answer).matches("(?s)HTTP/1\\.1 4\\d\\d .*");
        assertThat(body(answer).at("/error/type").asText()).isEqualTo("invalid_request_error");
    }

    @Test
    void onTheMessagesApiTheEnvelopeIsAnthropics_API6() throws IOException {
        String answer = raw("POST /v1/messages HTTP/1.1\r\nHost: x\r\nX-A: a\nb\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 400");
        JsonNode b = body(answer);
        assertThat(b.get("type").asText()).isEqualTo("error");
        assertThat(b.at("/error/type").asText()).isEqualTo("invalid_request_error");
    }
}
