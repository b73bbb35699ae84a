package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upstream that echoes the credential it was sent, in the shapes the issue-19 probe found
 * (lower case, URL-encoded, the Base64 of a Basic header), never gets it into a client answer,
 * the server log or the stored {@code lastError} (SEC-2).
 */
class SecretEchoIT {

    static final String KEY = "sk-Upstream/Secret+Key=0123456789";

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    LogCapture log;
    String clientKey;
    String connection;

    @BeforeEach
    void start() {
        log = new LogCapture();
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"client\"}");
        connection = sluice.addConnection("{\"provider\":\"acme\",\"authType\":\"apikey\",\"apiKey\":\"" + KEY
                + "\",\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
        log.close();
    }

    private static List<String> forms() {
        return List.of(KEY, KEY.toLowerCase(Locale.ROOT), KEY.toUpperCase(Locale.ROOT), URLEncoder.encode(KEY, StandardCharsets.UTF_8),
                Base64.getEncoder().encodeToString((KEY + ":").getBytes(StandardCharsets.UTF_8)));
    }

    private static String echo() {
        return "key " + KEY.toLowerCase(Locale.ROOT) + " revoked (sent as " + URLEncoder.encode(KEY, StandardCharsets.UTF_8)
                + ", Basic " + Base64.getEncoder().encodeToString((KEY + ":").getBytes(StandardCharsets.UTF_8)) + ")";
    }

    private void assertNowhere(String... texts) {
        for (String text : texts) {
            for (String form : forms()) {
                assertThat(text).doesNotContain(form);
            }
        }
    }

    @Test
    void anErrorInsideAStreamLeavesNoEchoedKeyInTheAnswerOrTheLog_SEC2() {
        upstream.enqueue(MockResponse.sse(List.of(
                "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}",
                "{\"error\":{\"message\":\"" + echo() + "\",\"type\":\"invalid_request_error\"}}"), Duration.ZERO));
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("acme/m", true));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("upstream sent an error inside the stream").contains("revoked");
        assertThat(log.text()).contains("failed mid-stream").contains("revoked");
        assertNowhere(r.body(), log.text());
    }

    @Test
    void anErrorAnswerLeavesNoEchoedKeyInTheAnswerTheLogOrLastError_SEC2() {
        upstream.enqueue(MockResponse.json(401, "{\"error\":{\"message\":\"" + echo() + "\",\"type\":\"invalid_request_error\"}}"));
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("acme/m", false));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("revoked");
        HttpResponse<String> admin = sluice.send("GET", "/api/providers/" + connection, ADMIN_KEY, null);
        assertThat(admin.body()).contains("revoked");
        assertNowhere(r.body(), log.text(), admin.body(), sluice.server.connections().find(connection).orElseThrow().state().lastError());
    }
}
