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
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Property-based fuzzing of the request headers Sluice reads (issue 19, SEC-6): the keys
 * ({@code Authorization}, {@code x-api-key}), the lease headers, the session-affinity headers, the
 * Anthropic headers and {@code Content-Type}, each given arbitrary bytes — CR, LF, NUL, bytes past
 * ASCII, invalid UTF-8, thousands of characters, empty values, repeated headers — sent on a raw
 * socket (an HTTP client would refuse most of them). The property: the server answers (never a
 * hang) with a status below 500, a 4xx in its API's envelope, and stays ready. Seeded generator
 * ({@code -Dfuzz.seed=N}); see {@link JsonFuzzIT} for why it is not jqwik.
 */
class HeaderFuzzIT {

    private static final List<String> HEADERS = List.of("Authorization", "x-api-key", "X-Sluice-Lease-Owner",
            "X-Sluice-Lease-Generation", "x-codex-session-id", "X-Session-Id", "x-sluice-session", "x-omniroute-session",
            "x-session-affinity", "anthropic-version", "anthropic-beta", "Content-Type", "X-Request-Id");
    private static final List<String> PATHS = List.of("/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/models",
            "/api/providers", "/api/v1/session-leases");
    private static final int CASES = 400;

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
        key = sluice.addKey("{\"name\":\"fuzz\",\"scopes\":[\"lease:exclusive\"],\"allowedConnections\":[]}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    /** An arbitrary header value, as bytes. */
    private static byte[] value(Random rnd) {
        ByteArrayOutputStream v = new ByteArrayOutputStream();
        switch (rnd.nextInt(8)) {
            case 0 -> { } // empty
            case 1 -> v.writeBytes("x".repeat(rnd.nextInt(12_000)).getBytes(StandardCharsets.US_ASCII));
            case 2 -> v.writeBytes(("Bearer sk-" + "\r".repeat(1 + rnd.nextInt(2)) + "x").getBytes(StandardCharsets.US_ASCII));
            case 3 -> v.writeBytes(("vlo_" + "A".repeat(20) + "\u0000" + "A".repeat(22)).getBytes(StandardCharsets.ISO_8859_1));
            case 4 -> v.writeBytes("sess\u00e9\u00ff\u00c3(".getBytes(StandardCharsets.ISO_8859_1)); // not UTF-8
            case 5 -> v.writeBytes("99999999999999999999999999999".getBytes(StandardCharsets.US_ASCII));
            case 6 -> v.writeBytes("\u00e2\u0082\u00ac \u20ac".getBytes(StandardCharsets.UTF_8));
            default -> {
                int n = rnd.nextInt(300);
                for (int i = 0; i < n; i++) {
                    int b = rnd.nextInt(256);
                    v.write(b == '\n' && rnd.nextBoolean() ? ' ' : b);
                }
            }
        }
        return v.toByteArray();
    }

    /** Sends one request with the headers given; returns the answer (head and body). */
    private String send(String path, byte[] headers, String body) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            try {
                out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: " + b.length + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(headers);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(b);
                out.flush();
            } catch (java.net.SocketException refusedEarly) {
                // the server answered the headers and closed before the body: the answer is read below
            }
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (java.net.SocketException reset) {
                // closed after the answer
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void arbitraryHeaderValuesGetAnEnvelopeNeverAServerError() throws Exception {
        long seed = Long.getLong("fuzz.seed", 19L);
        Random rnd = new Random(seed);
        String chat = SluiceHarness.chatBody("alpha/m", false);
        int refused = 0;
        for (int i = 0; i < CASES; i++) {
            String path = PATHS.get(rnd.nextInt(PATHS.size()));
            ByteArrayOutputStream headers = new ByteArrayOutputStream();
            boolean keyed = false;
            for (int h = 0, n = 1 + rnd.nextInt(4); h < n; h++) {
                String name = HEADERS.get(rnd.nextInt(HEADERS.size()));
                keyed |= name.equalsIgnoreCase("Authorization") || name.equalsIgnoreCase("x-api-key");
                headers.writeBytes((name + ": ").getBytes(StandardCharsets.US_ASCII));
                headers.writeBytes(value(rnd));
                headers.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            if (!keyed || rnd.nextBoolean()) {
                headers.writeBytes(("Authorization: Bearer " + (path.startsWith("/api/providers") ? SluiceHarness.ADMIN_KEY : key) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
            }
            if (rnd.nextBoolean()) {
                headers.writeBytes("Content-Type: application/json\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            String sent = headers.toString(StandardCharsets.ISO_8859_1);
            String answer = send(path, headers.toByteArray(), path.contains("leases") ? "{\"action\":\"acquire\",\"model\":\"alpha/m\"}" : chat);
            String what = "seed " + seed + " case " + i + " " + path + " headers " + sent.replace("\r", "\\r").replace("\0", "\\0");
            assertThat(answer).as(what).startsWith("HTTP/1.1 ");
            int status = Integer.parseInt(answer.substring(9, 12));
            assertThat(status).as(what + "\n" + answer).isLessThan(500);
            if (status >= 400) {
                refused++;
                String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
                assertThat(body).as(what + "\n" + answer).containsAnyOf("{\"error\":", "{\"type\":\"error\"");
            }
        }
        assertThat(refused).as("the generator reaches the refusals").isGreaterThan(CASES / 10);
        assertThat(sluice.send("GET", "/health/ready", null, null).statusCode()).isEqualTo(200);
    }
}
