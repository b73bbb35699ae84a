package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.http.Http10.Version;
import io.helidon.common.buffers.BufferData;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.0 served by an HTTP/1.1 connection (issue 19, defect 6), as pure byte transformations:
 * the request line's version, the request rewritten to HTTP/1.1, and Helidon's HTTP/1.1 answer
 * written back as one HTTP/1.0 answer however it is cut into writes.
 */
class Http10Test {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static Version version(String firstLine) {
        byte[] b = bytes(firstLine);
        int lf = firstLine.indexOf('\n');
        return Http10.version(b, lf);
    }

    @ParameterizedTest(name = "{0} → {1}")
    @CsvSource(delimiter = '|', value = {
        "GET / HTTP/1.1\\r\\n | HTTP_1_1",
        "GET / HTTP/1.0\\r\\n | HTTP_1_0",
        "GET / HTTP/1.0\\n | HTTP_1_0",
        "GET / HTTP/2.0\\r\\n | OTHER",
        "GET / HTTP/1.2\\r\\n | OTHER",
        "GET / HTTP/3\\r\\n | OTHER",
        "GET /\\r\\n | HTTP_1_1",
        "GET / http/1.0\\r\\n | HTTP_1_1",
        "GET / HTTP/x\\r\\n | HTTP_1_1",
        "GARBAGE\\r\\n | HTTP_1_1"
    })
    void theRequestLineNamesItsVersionAndHelidonJudgesWhatIsNoVersion(String line, Version expected) {
        assertThat(version(line.strip().replace("\\r", "\r").replace("\\n", "\n"))).isEqualTo(expected);
    }

    @Test
    void theHeadEndsAtTheFirstBlankLineWithOrWithoutCarriageReturns() {
        assertThat(Http10.headEnd(bytes("GET / HTTP/1.0\r\nA: b\r\n\r\nbody"), 28)).isEqualTo(24);
        assertThat(Http10.headEnd(bytes("GET / HTTP/1.0\nA: b\n\nbody"), 25)).isEqualTo(21);
        assertThat(Http10.headEnd(bytes("GET / HTTP/1.0\r\nA: b\r\n"), 22)).isEqualTo(-1);
        assertThat(Http10.headEnd(bytes("GET / HTTP/1.0\r\nA: b\r\n\r\n"), 23)).as("only the first len bytes count").isEqualTo(-1);
    }

    @Test
    void aRequestIsRewrittenWithConnectionCloseAndAHostWhenItHasNone() {
        assertThat(text(Http10.rewriteRequest(bytes("GET /v1/models HTTP/1.0\r\nAuthorization: Bearer k\r\n\r\n"), "127.0.0.1:8080")))
                .isEqualTo("GET /v1/models HTTP/1.1\r\nAuthorization: Bearer k\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n");
    }

    @Test
    void theClientsHostIsKeptAndItsConnectionHeadersDropped() {
        assertThat(text(Http10.rewriteRequest(bytes("GET / HTTP/1.0\r\nhost: api.example\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n"),
                "127.0.0.1:8080")))
                .isEqualTo("GET / HTTP/1.1\r\nhost: api.example\r\nConnection: close\r\n\r\n");
    }

    @Test
    void theBodyAfterTheHeadIsKeptByteForByte() {
        String body = "{\"model\":\"a/m\"}\r\n\r\nrest";
        byte[] out = Http10.rewriteRequest(bytes("POST /v1/chat/completions HTTP/1.0\nContent-Length: 24\n\n" + body), "h:1");
        assertThat(text(out)).isEqualTo("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 24\r\nHost: h:1\r\nConnection: close\r\n\r\n" + body);
    }

    @Test
    void aHeadCutAtTheLimitGoesThroughAsSentWithOnlyTheVersionChanged() {
        byte[] out = Http10.rewriteRequest(bytes("GET / HTTP/1.0\r\nX-Long: aaaa"), "h:1");
        assertThat(text(out)).isEqualTo("GET / HTTP/1.1\r\nX-Long: aaaa");
    }

    @Test
    void aHeadRequestIsRecognisedByItsMethodOnly() {
        assertThat(Http10.isHead(bytes("HEAD / HTTP/1.0\r\n"))).isTrue();
        assertThat(Http10.isHead(bytes("HEADER / HTTP/1.0\r\n"))).isFalse();
        assertThat(Http10.isHead(bytes("GET / HTTP/1.0\r\n"))).isFalse();
    }

    @Test
    void the505AnswerIsWholeWithItsLengthAndTheErrorEnvelope() {
        String answer = text(Http10.versionNotSupported());
        String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        assertThat(answer).startsWith("HTTP/1.1 505 HTTP Version Not Supported\r\n").contains("Connection: close\r\n")
                .contains("Content-Length: " + body.length() + "\r\n");
        assertThat(body).isEqualTo("{\"error\":{\"message\":\"HTTP version not supported: Sluice speaks HTTP/1.1 and HTTP/1.0.\","
                + "\"type\":\"server_error\",\"code\":\"http_version_not_supported\",\"param\":null}}");
    }

    /** Writes an HTTP/1.1 answer through a connection writer turned HTTP/1.0, cut into writes of {@code step} bytes. */
    private static String asHttp10(String http11, boolean headRequest, int step) {
        ClientConnectionsTest.Written target = new ClientConnectionsTest.Written();
        Http10.ConnectionWriter writer = new Http10.ConnectionWriter(target);
        writer.http10(headRequest);
        byte[] all = bytes(http11);
        for (int i = 0; i < all.length; i += step) {
            byte[] part = java.util.Arrays.copyOfRange(all, i, Math.min(all.length, i + step));
            if ((i / step) % 2 == 0) {
                writer.write(BufferData.create(part));
            } else {
                writer.writeNow(BufferData.create(part));
            }
        }
        return target.text();
    }

    @Test
    void untilTheConnectionTurnsOutToBeHttp10TheAnswerIsWrittenAsItIs() {
        ClientConnectionsTest.Written target = new ClientConnectionsTest.Written();
        Http10.ConnectionWriter writer = new Http10.ConnectionWriter(target);
        writer.write(BufferData.create(bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")));
        assertThat(target.text()).isEqualTo("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    }

    @ParameterizedTest(name = "cut every {0} bytes")
    @CsvSource({"1", "2", "3", "7", "1000"})
    void aChunkedAnswerIsDechunkedWithItsTrailersDroppedHoweverItIsCut(int step) {
        String http11 = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
                + "d\r\ndata: hello\n\n\r\n" + "10;ext=1\r\ndata: world!!!\n\n\r\n" + "0\r\nX-Trailer: t\r\n\r\n";
        assertThat(asHttp10(http11, false, step))
                .isEqualTo("HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: hello\n\ndata: world!!!\n\n");
    }

    @ParameterizedTest(name = "cut every {0} bytes")
    @CsvSource({"1", "5", "1000"})
    void anAnswerWithALengthIsPassedThroughAfterItsHead(int step) {
        assertThat(asHttp10("HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}", false, step))
                .isEqualTo("HTTP/1.0 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
    }

    @Test
    void anInterimAnswerIsDroppedAndTheFinalOneWritten() {
        assertThat(asHttp10("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false, 4))
                .isEqualTo("HTTP/1.0 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
    }

    @Test
    void aHeadRequestOrA204GetsNoBodyWhateverTheHeadersSay() {
        assertThat(asHttp10("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nno\r\n0\r\n\r\n", true, 1000))
                .isEqualTo("HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n");
        assertThat(asHttp10("HTTP/1.1 204 No Content\r\n\r\nleftover", false, 1000))
                .isEqualTo("HTTP/1.0 204 No Content\r\nConnection: close\r\n\r\n");
    }
}
